import Foundation
import NoiseClockCore
import Testing

@Suite("The face's night schedule")
struct NightScheduleTests {
    let berlin = Zone(identifier: "Europe/Berlin") ?? .utc

    private func night(_ start: String, _ end: String, enabled: Bool = true) -> FaceStyle.Night {
        var night = FaceStyle.Night()
        night.enabled = enabled
        night.start = FaceStyle.NightEdge(start) ?? .sunset
        night.end = FaceStyle.NightEdge(end) ?? .sunrise
        return night
    }

    /// A sun that sets at 16:30 UTC and rises at 06:45 UTC every day.
    private let steadySun: NightSchedule.SunEvent = { edge, day in
        let midnight = Date(timeIntervalSince1970: Double(day.daysSinceEpoch * 86_400))
        return midnight.addingTimeInterval(edge == .sunset ? 16.5 * 3600 : 6.75 * 3600)
    }

    @Test("22:00 to 07:00 in Berlin: night before midnight and after, day at noon, each with the next change")
    func acrossMidnight() {
        // 2026-11-23: Berlin is +01:00.
        let late = NightSchedule.state(at: UTC.date(2026, 11, 23, 22, 30), night: night("22:00", "07:00"), zone: berlin) { _, _ in nil }
        #expect(late == .init(isNight: true, nextChange: UTC.date(2026, 11, 24, 6, 0)))
        let early = NightSchedule.state(at: UTC.date(2026, 11, 23, 4, 0), night: night("22:00", "07:00"), zone: berlin) { _, _ in nil }
        #expect(early == .init(isNight: true, nextChange: UTC.date(2026, 11, 23, 6, 0)))
        let noon = NightSchedule.state(at: UTC.date(2026, 11, 23, 11, 0), night: night("22:00", "07:00"), zone: berlin) { _, _ in nil }
        #expect(noon == .init(isNight: false, nextChange: UTC.date(2026, 11, 23, 21, 0)))
        // At the edge itself the new state holds.
        let edge = NightSchedule.state(at: UTC.date(2026, 11, 23, 21, 0), night: night("22:00", "07:00"), zone: berlin) { _, _ in nil }
        #expect(edge.isNight)
    }

    @Test("the night that the clocks go forward in ends at 07:00 summer time (05:00 UTC, not 06:00)")
    func springForward() {
        let state = NightSchedule.state(at: UTC.date(2026, 3, 28, 23, 0), night: night("22:00", "07:00"), zone: berlin) { _, _ in nil }
        #expect(state == .init(isNight: true, nextChange: UTC.date(2026, 3, 29, 5, 0)))
    }

    @Test("from sunset to sunrise, with the sun's times from the caller")
    func sun() {
        let evening = NightSchedule.state(at: UTC.date(2026, 11, 23, 17, 0), night: night("sunset", "sunrise"), zone: berlin, sun: steadySun)
        #expect(evening == .init(isNight: true, nextChange: UTC.date(2026, 11, 24, 6, 45)))
        let afternoon = NightSchedule.state(at: UTC.date(2026, 11, 23, 15, 0), night: night("sunset", "sunrise"), zone: berlin, sun: steadySun)
        #expect(afternoon == .init(isNight: false, nextChange: UTC.date(2026, 11, 23, 16, 30)))
        // Mixed: from sunset to a fixed 06:00.
        let mixed = NightSchedule.state(at: UTC.date(2026, 11, 23, 17, 0), night: night("sunset", "06:00"), zone: berlin, sun: steadySun)
        #expect(mixed == .init(isNight: true, nextChange: UTC.date(2026, 11, 24, 5, 0)))
    }

    @Test("off, equal edges, or a sun that never sets: never night, and no change to wait for")
    func never() {
        let now = UTC.date(2026, 6, 21, 12, 0)
        #expect(NightSchedule.state(at: now, night: night("22:00", "07:00", enabled: false), zone: berlin) { _, _ in nil }
            == .init(isNight: false, nextChange: nil))
        #expect(NightSchedule.state(at: now, night: night("07:00", "07:00"), zone: berlin) { _, _ in nil } == .init(isNight: false, nextChange: nil))
        // Midsummer above the polar circle: sunrise has no sunset.
        let polar = NightSchedule.state(at: now, night: night("sunset", "sunrise"), zone: berlin) { _, _ in nil }
        #expect(polar == .init(isNight: false, nextChange: nil))
    }
}
