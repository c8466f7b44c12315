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
