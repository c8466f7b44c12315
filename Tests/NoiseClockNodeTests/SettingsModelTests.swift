import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("SettingsModel")
struct SettingsModelTests {
    let configured = ClockSettings(timeFormat: .twentyFourHour, showSeconds: false, timezone: "UTC", locale: "en_US")
    let logs = LogRecorder()

    @Test("a change is stored and a new model on the same store starts with it")
    func changePersists() async throws {
        try await withTemporaryDirectory { directory in
            let store = try FileStore(directory: directory.path)
            let model = SettingsModel(configured: configured, store: store, logger: logs.logger())

            let changed = try await model.change(SettingsPatch(timeFormat: .twelveHour, showSeconds: true))

            #expect(changed.timeFormat == .twelveHour)
            #expect(changed.showSeconds)
            let reloaded = SettingsModel(
                configured: configured, store: try FileStore(directory: directory.path), logger: logs.logger())
            #expect(reloaded.current == changed)
            #expect(reloaded.loadProblem == nil)
        }
    }

    @Test("only the fields changed over MQTT are stored, not the configured ones")
    func storesOnlyOverrides() async throws {
        let store = InMemoryStore()
        let model = SettingsModel(configured: configured, store: store, logger: logs.logger())
        _ = try await model.change(SettingsPatch(timeFormat: .twelveHour))
        #expect(store.document(SettingsModel.documentName) == ["time_format": "12h"])
    }

    @Test("stored overrides win over the configured values; the rest comes from the configuration")
    func overridesWin() async throws {
        let store = InMemoryStore([SettingsModel.documentName: ["time_format": "12h", "locale": "de_DE"]])
        let configuredElsewhere = ClockSettings(
            timeFormat: .twentyFourHour, showSeconds: true, timezone: "Europe/Berlin", locale: "en_US")

        let model = SettingsModel(configured: configuredElsewhere, store: store, logger: logs.logger())

        #expect(
            model.current
                == ClockSettings(timeFormat: .twelveHour, showSeconds: true, timezone: "Europe/Berlin", locale: "de_DE"))
        #expect(model.loadProblem == nil)
    }

    @Test("the zone in force follows the timezone setting, and an empty timezone means the system's")
    func zoneFollowsSettings() async throws {
        let model = SettingsModel(configured: configured, store: InMemoryStore(), logger: logs.logger())
        let system = try #require(Zone(identifier: "America/New_York"))
        #expect(model.zone(system: system).identifier == "UTC")
        _ = try await model.change(SettingsPatch(timezone: "Europe/Berlin"))
        #expect(model.zone(system: system).identifier == "Europe/Berlin")
        #expect(model.zone(system: system).identifier == model.current.zone(system: system).identifier)
        _ = try await model.change(SettingsPatch(timezone: ""))
        #expect(model.zone(system: system).identifier == "America/New_York")
    }

    @Test("a patch made from the settings as staged: two days off added while the first write waits both count")
    func madeFromStaged() async throws {
        let store = GateStore()
        let model = SettingsModel(configured: configured, writer: StoreWriter(store: store), logger: logs.logger())
        var started = store.started.makeAsyncIterator()
        let add = { @Sendable (date: String) in
            { @Sendable (current: ClockSettings) throws(CommandError) -> SettingsPatch in
                SettingsPatch(wake: ["days_off": .array((current.wake.daysOff.map(\.iso) + [date]).map { .string($0) })])
            }
        }
        store.close()
        let first = Task { try await model.change(add("2026-12-28")) }
        _ = await started.next()
        // The first write is held at the disk; the second is made from the settings it will bring.
        let second = Task { try await model.change(add("2026-12-29")) }
        // (Time for it to be staged before the disk is let go. Should it come later, it is made from
        // the first change once that is stored, and the outcome is the same: this never fails for
        // timing, it may only not test the staged path.)
        try await Task.sleep(for: .milliseconds(50))
        store.open()
        _ = try await first.value
        let after = try await second.value
        #expect(after.wake.daysOff.map(\.iso) == ["2026-12-28", "2026-12-29"])
        #expect(model.current.wake.daysOff.map(\.iso) == ["2026-12-28", "2026-12-29"])
        #expect(store.saved.last?["wake"]?["days_off"] == ["2026-12-28", "2026-12-29"])
    }

    @Test("a patch that cannot be made changes nothing and says why")
    func madeAndRefused() async throws {
        let store = InMemoryStore()
        let model = SettingsModel(configured: configured, store: store, logger: logs.logger())
        await #expect(throws: CommandError.self) {
            _ = try await model.change { _ throws(CommandError) in throw .invalidField("add", "too many") }
        }
        #expect(store.saves == 0)
        #expect(model.current == configured)
    }

    @Test("a change that changes nothing is not written again")
    func unchangedIsNotSaved() async throws {
        let store = InMemoryStore()
        let model = SettingsModel(configured: configured, store: store, logger: logs.logger())
        _ = try await model.change(SettingsPatch(timeFormat: .twelveHour))
        _ = try await model.change(SettingsPatch(timeFormat: .twelveHour))
        _ = try await model.change(SettingsPatch())
        #expect(store.saves == 1)
    }

    @Test("a stored file with an invalid value is moved aside and the problem names the file and the field")
    func invalidStoredValue() async throws {
        try await withTemporaryDirectory { directory in
            let stored = #"{"time_format":"13h"}"#
            try directory.write(SettingsModel.documentName, stored)

            let model = SettingsModel(
                configured: configured, store: try FileStore(directory: directory.path), logger: logs.logger())

            #expect(model.current == configured)
            let problem = try #require(model.loadProblem)
            #expect(problem.contains(SettingsModel.documentName))
            #expect(problem.contains("time_format"))
            let files = try directory.contents()
            #expect(!files.contains(SettingsModel.documentName))
            let aside = try #require(files.first { $0.hasPrefix("settings.json.unreadable-") })
            #expect(problem.contains(aside))
            #expect(directory.bytes(aside) == Array(stored.utf8))
            #expect(logs.entries.contains { $0.level == .error && $0.metadata["problem"] == problem })
        }
    }

    @Test("a stored file that is not a JSON object is moved aside and reported")
    func storedArray() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write(SettingsModel.documentName, "[1,2,3]")
            let model = SettingsModel(
                configured: configured, store: try FileStore(directory: directory.path), logger: logs.logger())
            #expect(model.current == configured)
            #expect(model.loadProblem?.contains("settings.json moved to") == true)
            #expect(try directory.contents().allSatisfy { $0.hasPrefix("settings.json.unreadable-") })
        }
    }

    @Test("a corrupt stored file is reported in loadProblem and the configured settings apply")
    func corruptStoredFile() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write(SettingsModel.documentName, [0xC3, 0x28, 0x7B])
            let model = SettingsModel(
                configured: configured, store: try FileStore(directory: directory.path), logger: logs.logger())
            #expect(model.current == configured)
            #expect(model.loadProblem?.contains("not valid JSON") == true)
        }
    }

    @Test("when the store cannot save, change throws unavailable and the settings stay as they were")
    func failingStore() async throws {
        let model = SettingsModel(configured: configured, store: FailingStore(), logger: logs.logger())

        await #expect {
            _ = try await model.change(SettingsPatch(timeFormat: .twelveHour))
        } throws: { error in
            (error as? CommandError)?.code == .unavailable
        }
        #expect(model.current == configured)
    }
}
