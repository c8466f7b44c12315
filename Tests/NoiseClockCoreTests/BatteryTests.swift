import Foundation
import NoiseClockCore
import Testing

@Suite("BatteryLevel")
struct BatteryLevelTests {
    // SPEC §2: green 50-100 %, yellow 20-49, orange 10-19, red below 10.
    @Test(
        "each band starts exactly at its lower edge",
        arguments: [
            (0.0, BatteryLevel.red), (9.9, .red), (10, .orange), (19.9, .orange), (20, .yellow), (49.9, .yellow),
            (50, .green), (100, .green),
        ])
    func bandEdges(percentage: Double, level: BatteryLevel) {
        #expect(BatteryLevel(percentage: percentage) == level)
    }

    @Test("a reading's level follows its percentage, and is null for an unknown percentage or no battery")
    func readingLevel() {
        #expect(BatteryReading(present: true, percentage: 9.9, source: "sysfs").level == .red)
        #expect(BatteryReading(present: true, percentage: 87, source: "sysfs").level == .green)
        #expect(BatteryReading(present: true, percentage: nil, source: "sysfs").level == nil)
        #expect(BatteryReading.absent(source: "none").level == nil)
    }

    @Test("the level names are the SPEC's words")
    func rawValues() {
        #expect(BatteryLevel.allCases.map(\.rawValue).sorted() == ["green", "orange", "red", "yellow"])
    }
}

@Suite("BatteryState")
struct BatteryStateTests {
    @Test("the state names are the SPEC's words")
    func rawValues() {
        #expect(
            BatteryState.allCases.map(\.rawValue).sorted() == ["charging", "discharging", "full", "not_charging", "unknown"])
    }

    @Test(
        "UPower states map to the SPEC's states",
        arguments: [
            (UInt32(1), BatteryState.charging),
            (2, .discharging),
            (3, .discharging),  // empty
            (4, .full),
            (5, .notCharging),  // pending charge
            (6, .notCharging),  // pending discharge
            (0, .unknown),
            (7, .unknown),
            (99, .unknown),
        ])
    func upower(state: UInt32, expected: BatteryState) {
        #expect(BatteryState(upowerState: state) == expected)
    }

    @Test(
        "kernel status strings map to the SPEC's states, with or without a trailing newline",
        arguments: [
            ("Charging", BatteryState.charging),
            ("Discharging", .discharging),
            ("Full", .full),
            ("Not charging", .notCharging),
            ("Unknown", .unknown),
            ("Charging\n", .charging),
            ("Discharging\n", .discharging),
            ("Full\n", .full),
            ("Not charging\n", .notCharging),
            ("Unknown\n", .unknown),
            ("", .unknown),
            ("garbage", .unknown),
            ("Chargingx", .unknown),
        ])
    func sysfs(status: String, expected: BatteryState) {
        #expect(BatteryState(sysfsStatus: status) == expected)
    }
}

@Suite("BatteryReading.json")
struct BatteryReadingJSONTests {
    static let specKeys: Set<String> = [
        "present", "percentage", "state", "charging", "level", "time_to_empty_s", "time_to_full_s", "source",
    ]

    @Test("the payload has exactly the SPEC's keys, whatever the reading")
    func exactKeys() throws {
        let readings = [
            BatteryReading(
                present: true, percentage: 87, state: .discharging, timeToEmptySeconds: 5400, source: "upower"),
            BatteryReading.absent(source: "none"),
            BatteryReading(present: true, percentage: nil, state: .unknown, source: "sysfs"),
        ]
        for reading in readings {
            let members = try #require(reading.json.objectValue)
            #expect(Set(members.keys) == Self.specKeys)
        }
    }

    @Test("the SPEC's example reading serializes to the SPEC's example payload")
    func specExample() throws {
        let reading = BatteryReading(
            present: true, percentage: 87, state: .discharging, timeToEmptySeconds: 5400, timeToFullSeconds: nil,
            source: "upower")
        let expected = try JSONValue.parse(
            Array(
                #"{"present":true,"percentage":87.0,"state":"discharging","charging":false,"level":"green","time_to_empty_s":5400,"time_to_full_s":null,"source":"upower"}"#
                    .utf8))
        #expect(reading.json == expected)
    }

    @Test("charging is true only for the charging state", arguments: BatteryState.allCases)
    func chargingFlag(state: BatteryState) {
        let reading = BatteryReading(present: true, percentage: 50, state: state, source: "sysfs")
        #expect(reading.json[member: "charging"] == .bool(state == .charging))
        #expect(reading.json[member: "state"] == .string(state.rawValue))
    }

    @Test("a charging reading carries time_to_full_s and a null time_to_empty_s")
    func chargingTimes() {
        let reading = BatteryReading(
            present: true, percentage: 42, state: .charging, timeToFullSeconds: 3600, source: "sysfs")
        #expect(reading.json[member: "time_to_full_s"] == .number(3600))
        #expect(reading.json[member: "time_to_empty_s"] == .null)
        #expect(reading.json[member: "level"] == .string("yellow"))
        #expect(reading.json[member: "charging"] == .bool(true))
    }

    @Test("no battery: present false, null percentage, level and times, and the source named")
    func absent() {
        let json = BatteryReading.absent(source: "none").json
        #expect(json[member: "present"] == .bool(false))
        #expect(json[member: "percentage"] == .null)
        #expect(json[member: "level"] == .null)
        #expect(json[member: "time_to_empty_s"] == .null)
        #expect(json[member: "time_to_full_s"] == .null)
        #expect(json[member: "state"] == .string("unknown"))
        #expect(json[member: "charging"] == .bool(false))
        #expect(json[member: "source"] == .string("none"))
    }

    @Test("a present battery of unknown charge has null percentage and level")
    func unknownPercentage() {
        let json = BatteryReading(present: true, percentage: nil, state: .discharging, source: "sysfs").json
        #expect(json[member: "present"] == .bool(true))
        #expect(json[member: "percentage"] == .null)
        #expect(json[member: "level"] == .null)
    }

    @Test(
        "the percentage is rounded to one decimal",
        arguments: [(87.04, 87.0), (87.06, 87.1), (33.333333, 33.3), (99.96, 100.0), (0.04, 0.0), (12.25001, 12.3)])
    func rounding(raw: Double, shown: Double) throws {
        let json = BatteryReading(present: true, percentage: raw, state: .discharging, source: "upower").json
        let value = try #require(json[member: "percentage"])
        guard case .number(let number) = value else {
            Issue.record("percentage is not a number: \(value)")
            return
        }
        #expect(abs(number - shown) < 1e-9)
    }
}

@Suite("LowBatteryWarning")
struct LowBatteryWarningTests {
    private func discharging(_ percentage: Double?) -> BatteryReading {
        BatteryReading(present: true, percentage: percentage, state: .discharging, source: "upower")
    }

    private func charging(_ percentage: Double) -> BatteryReading {
        BatteryReading(present: true, percentage: percentage, state: .charging, source: "upower")
    }

    /// Feeds readings in order and returns which of them warned.
    private func warnings(_ readings: [BatteryReading], threshold: Double = 20) -> [Bool] {
        var warning = LowBatteryWarning(threshold: threshold)
        return readings.map { warning.shouldWarn(for: $0) }
    }

    @Test("warns once when a discharging battery falls below the threshold, not again further down")
    func warnsOnce() {
        #expect(
            warnings([discharging(25), discharging(20), discharging(19.9), discharging(19), discharging(15)])
                == [false, false, true, false, false])
    }

    @Test("exactly at the threshold is not below it")
    func atThreshold() {
        #expect(warnings([discharging(20)]) == [false])
        #expect(warnings([discharging(20)], threshold: 30) == [true])
    }

    @Test("a charging battery below the threshold does not warn")
    func chargingDoesNotWarn() {
        #expect(warnings([charging(19), charging(5), charging(15)]) == [false, false, false])
    }

    @Test("full, not charging or unknown below the threshold do not warn")
    func otherStatesDoNotWarn() {
        let readings = [BatteryState.full, .notCharging, .unknown].map {
            BatteryReading(present: true, percentage: 10, state: $0, source: "upower")
        }
        #expect(warnings(readings) == [false, false, false])
    }

    @Test("re-arms only at threshold + 5 points, then warns again on the next fall")
    func rearm() {
        #expect(
            warnings([
                discharging(19.9),  // warns
                charging(22), charging(24.9), discharging(19),  // 24.9 does not re-arm: no second warning
                charging(25),  // re-arms
                discharging(24), discharging(19.5),  // warns again
                discharging(18),
            ]) == [true, false, false, false, false, false, true, false])
    }

    @Test("the re-arming reading itself never warns, even when discharging")
    func rearmingReadingDoesNotWarn() {
        var warning = LowBatteryWarning(threshold: 20)
        let first = warning.shouldWarn(for: discharging(10))
        #expect(first)
        #expect(!warning.armed)
        let rearming = warning.shouldWarn(for: discharging(25))
        #expect(!rearming)
        #expect(warning.armed)
        let again = warning.shouldWarn(for: discharging(10))
        #expect(again)
    }

    @Test("hovering around the threshold warns once")
    func hovering() {
        let readings = [20.1, 19.9, 20.1, 19.9, 20.2, 19.8].map(discharging)
        #expect(warnings(readings) == [false, true, false, false, false, false])
    }

    @Test("re-arm margin follows the threshold")
    func otherThreshold() {
        #expect(
            warnings([discharging(9), discharging(14.9), discharging(9), discharging(15), discharging(9)], threshold: 10)
                == [true, false, false, false, true])
    }

    @Test("no battery, or a battery of unknown charge, never warns")
    func absentNeverWarns() {
        let readings = [
            BatteryReading.absent(source: "none"),
            discharging(nil),
            BatteryReading(present: false, percentage: 5, state: .discharging, source: "sysfs"),
        ]
        var warning = LowBatteryWarning(threshold: 20)
        #expect(readings.map { warning.shouldWarn(for: $0) } == [false, false, false])
        // Still armed afterwards: the first real low reading warns.
        let low = warning.shouldWarn(for: discharging(12))
        #expect(low)
    }
}
