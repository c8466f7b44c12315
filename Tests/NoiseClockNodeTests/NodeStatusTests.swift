import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import Synchronization
import Testing
@testable import NoiseClockNode

/// The audio engine's state as a test sets it.
private final class AudioNow: Sendable {
    let status = Mutex(AudioStatus(device: "default"))
    func set(_ new: AudioStatus) { status.withLock { $0 = new } }
    var read: AudioStatus { status.withLock { $0 } }
}

@Suite("Node status")
struct NodeStatusTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("within one second the status is made once, yet every change of its parts shows at once")
    func keptUntilAPartChanges() throws {
        let audio = AudioNow()
        let status = NodeStatus(startedAt: start, audioDevice: "default", audio: { audio.read }, problems: [])
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let first = status.json(at: start.addingTimeInterval(5.2), in: berlin)
        #expect(first["uptime_s"] == 5)
        #expect(first["started_at"] == "2027-01-15T09:00:00+01:00")
        #expect(first["audio"]?["ok"] == true)
        #expect(first["face"] == nil && first["storage"] == nil)
        #expect(status.json(at: start.addingTimeInterval(5.9), in: berlin) == first)

        audio.set(AudioStatus(device: "default", ok: false, error: "device gone", xruns: 3))
        let audioChanged = status.json(at: start.addingTimeInterval(5.9), in: berlin)
        #expect(audioChanged["audio"] == ["device": "default", "ok": false, "error": "device gone", "xruns": 3])

        status.face.value = ["url": "http://127.0.0.1:8080/", "ok": true, "clients": 1]
        #expect(status.json(at: start.addingTimeInterval(5.9), in: berlin)["face"]?["clients"] == 1)
        status.storage.value = ["ok": false, "error": "read-only"]
        #expect(status.json(at: start.addingTimeInterval(5.9), in: berlin)["storage"]?["error"] == "read-only")

        #expect(status.json(at: start.addingTimeInterval(5.9), in: .utc)["started_at"] == "2027-01-15T08:00:00+00:00")
        #expect(status.json(at: start.addingTimeInterval(6.0), in: .utc)["uptime_s"] == 6)
    }
}
