import Foundation
import NoiseClockCore
import NoiseClockMQTT
import Testing

@testable import NoiseClockNode

@Suite("Waking up (SPEC §12): B/wake's phases, the sunrise's events and the lamps")
struct WakePhaseTests {
    func wake(_ f: AlarmFixture) -> JSONValue? { f.transport.published(on: f.topics.state(StateTopic.wake)).last?.json }

    @Test("idle; a sunrise from ring − sunrise_min (wake_sunrise, progress, the curve's level); ringing; awake after a dismiss (wake_awake); idle 30 min later")
    func phases() async throws {
        let f = try await AlarmFixture()
        #expect(wake(f)?["phase"] == "idle")
        let (id, alarm) = try await f.add(#"{"time":"08:40","label":"Work","sunrise_min":30}"#)
        #expect(alarm["sunrise_min"] == 30)
        let ring = fire.addingTimeInterval(30 * 60)
        // 08:10, the sunrise's first instant: the scheduler wakes for it exactly.
        #expect(await f.advance(to: ring.addingTimeInterval(-30 * 60 - 1)) == .seconds(1))
        #expect(wake(f)?["phase"] == "idle")
        let woke = await f.advance(to: ring.addingTimeInterval(-30 * 60))
        #expect(wake(f) == [
            "phase": "sunrise", "alarm_id": .string(id), "label": "Work", "ring_at": "2026-03-10T08:40:00+01:00",
            "sunrise_started_at": "2026-03-10T08:10:00+01:00", "progress": 0, "level": 0,
        ])
        #expect(woke == .seconds(30), "during a sunrise B/wake moves on every 30 s")
        #expect(f.events("wake_sunrise") == [[
            "event": "wake_sunrise", "at": "2026-03-10T08:10:00+01:00", "alarm_id": .string(id), "label": "Work",
            "ring_at": "2026-03-10T08:40:00+01:00", "sunrise_started_at": "2026-03-10T08:10:00+01:00",
        ]])
        await f.advance(to: ring.addingTimeInterval(-15 * 60))
        #expect(wake(f)?["progress"] == 0.5)
        #expect(wake(f)?["level"] == 18.4)
        #expect(f.events("wake_sunrise").count == 1, "once per sunrise")

        await f.advance(to: ring)
        #expect(wake(f)?["phase"] == "ringing")
        #expect(wake(f)?["level"] == 100)
        _ = try await f.ok("snooze")
        #expect(wake(f)?["phase"] == "snoozed")
        #expect(wake(f)?["level"] == 100, "a snooze keeps the light")
        await f.advance(to: ring.addingTimeInterval(60))
        _ = try await f.ok("dismiss")
        #expect(wake(f)?["phase"] == "awake")
        let awake = try #require(f.events("wake_awake").first)
        #expect(awake["rang_s"] == 60)
        #expect(awake["snoozes"] == 1)
        #expect(awake["alarm_id"] == .string(id))
        await f.advance(to: ring.addingTimeInterval(60 + 30 * 60 - 1))
        #expect(wake(f)?["phase"] == "awake")
        await f.advance(to: ring.addingTimeInterval(60 + 30 * 60))
        #expect(wake(f)?["phase"] == "idle")
    }

    @Test("switching the alarm off during its sunrise ends it: idle")
    func cancelled() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:40","sunrise_min":40}"#)
        await f.advance(to: fire)
        #expect(wake(f)?["phase"] == "sunrise")
        _ = try await f.ok("alarm/disable", id)
        #expect(wake(f)?["phase"] == "idle")
        #expect(f.events("wake_awake").isEmpty)
    }

    @Test("settings.wake.sunrise_min and lights are the defaults of new alarms")
    func defaults() async throws {
        let f = try await AlarmFixture()
        _ = try await f.ok("settings", #"{"wake":{"sunrise_min":20,"lights":true}}"#)
        let (_, alarm) = try await f.add(#"{"time":"08:40"}"#)
        #expect(alarm["sunrise_min"] == 20)
        #expect(alarm["lights"] == true)
        let bad = await f.respond("alarm/add", #"{"time":"08:40","sunrise_min":61}"#)
        #expect(bad.error?.field == "sunrise_min")
    }

    @Test("the lamps of an alarm with lights: a command each min_interval_s with a transition to the curve one interval on; full at the ring")
    func lamps() async throws {
        let f = try await AlarmFixture(configuration: [
            "wake.lights[0].topic": "zigbee2mqtt/lamp/set", "wake.lights[0].min_interval_s": "60",
            "wake.lights[0].color_temp[0]": "2000", "wake.lights[0].color_temp[1]": "4000",
        ])
        f.transport.send(.connected)
        try await f.add(#"{"time":"08:40","sunrise_min":30,"lights":true}"#)
        try await f.add(#"{"time":"09:40","sunrise_min":30}"#)
        let ring = fire.addingTimeInterval(30 * 60)
        func commands() -> [JSONValue] { f.transport.published(on: "zigbee2mqtt/lamp/set").compactMap(\.json) }
        await f.advance(to: ring.addingTimeInterval(-30 * 60))
        let first = try #require(commands().first)
        #expect(first["state"] == "ON")
        #expect(first["transition"] == 60)
        // One minute into a 30-minute sunrise: the level at progress 1/30.
        #expect(first["brightness"] == .number((SunriseCurve.level(1.0 / 30) * 254).rounded().clamped(1)))
        await f.advance(to: ring.addingTimeInterval(-30 * 60 + 30))
        #expect(commands().count == 1, "at most one a minute")
        await f.advance(to: ring.addingTimeInterval(-29 * 60))
        #expect(commands().count == 2)
        #expect(commands().last?["brightness"] == .number((SunriseCurve.level(2.0 / 30) * 254).rounded().clamped(1)))
        await f.advance(to: ring)
        #expect(commands().last?["brightness"] == 254)
        #expect(commands().last?["color_temp"] == 250)
        _ = try await f.ok("dismiss")
        let count = commands().count
        await f.advance(to: ring.addingTimeInterval(31 * 60))
        #expect(commands().count == count, "left on after a dismiss")
        // The 09:40 alarm has a sunrise without lights: the lamp is not driven.
        await f.advance(to: ring.addingTimeInterval(40 * 60))
        #expect(wake(f)?["phase"] == "sunrise")
        #expect(commands().count == count)
    }

    @Test("a sunrise with lights that ends without its ring turns the lamps off; nothing is sent while the broker is away")
    func lampsOff() async throws {
        let f = try await AlarmFixture(configuration: ["wake.lights[0].topic": "lamp/level", "wake.lights[0].schema": "level"])
        let (id, _) = try await f.add(#"{"time":"08:40","days":["mon","tue","wed","thu","fri","sat","sun"],"sunrise_min":30,"lights":true}"#)
        // The fake transport starts without a connection.
        await f.advance(to: fire)
        #expect(f.transport.published(on: "lamp/level").isEmpty)
        f.transport.send(.connected)
        await f.advance(to: fire.addingTimeInterval(20))
        let sent = f.transport.published(on: "lamp/level").map(\.text)
        #expect(sent.count == 1, "the level of the moment once the broker is back: \(sent)")
        _ = try await f.ok("alarm/skip_next", id)
        #expect(f.transport.published(on: "lamp/level").last?.text == "0")
    }
}

extension Double {
    fileprivate func clamped(_ low: Double) -> Double { Swift.max(low, self) }
}
