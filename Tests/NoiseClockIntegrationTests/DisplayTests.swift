import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// A fake `/sys/class/backlight/panel` as the kernel lays it out: brightness 0-255, bl_power 0 (on).
private func fakeBacklight() throws -> (root: String, panel: String) {
    let root = try makeTemporaryDirectory("backlight")
    let panel = "\(root)/panel"
    try FileManager.default.createDirectory(atPath: panel, withIntermediateDirectories: true)
    for (file, value) in [("max_brightness", "255"), ("brightness", "128"), ("bl_power", "0"), ("actual_brightness", "128")] {
        try "\(value)\n".write(toFile: "\(panel)/\(file)", atomically: true, encoding: .utf8)
    }
    return (root, panel)
}

private func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("The screen through a real node: a backlight in a fake sysfs tree, B/display, the verbs, Home Assistant's light")
struct DisplayTests {
    @Test("the node lights the named backlight by day, dims and darkens it by verb, and says so in B/display; discovery has a Screen light")
    func backlight() async throws {
        let (root, panel) = try fakeBacklight()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withNode(environment: ["NOISECLOCK_DISPLAY_BACKLIGHT": panel, "NOISECLOCK_MQTT_DISCOVERY": "true"],
                           subscriptions: { ["\($0.node)/#", "homeassistant/device/#"] }) { node, _, client in
            let first = try #require(await client.latest(node.topics.display) { $0["backlight"] != nil })
            #expect(first["backlight"]?.stringValue?.hasSuffix("panel") == true)
            #expect(first["night"] == false)
            // Day brightness 100: the panel at its maximum, powered.
            #expect(await eventually { read("\(panel)/brightness") == "255" })
            #expect(read("\(panel)/bl_power") == "0")

            let dimmed = try await client.request(node.topics, "display/brightness", "40")
            #expect(dimmed["data"]?["brightness"] == 40)
            #expect(await eventually { read("\(panel)/brightness") == "102" }, "40 % of 255, rounded up: \(read("\(panel)/brightness"))")
            let off = try await client.request(node.topics, "display/power", "OFF")
            #expect(off["data"]?["screen"] == "off")
            #expect(await eventually { read("\(panel)/bl_power") == "4" })
            _ = try await client.request(node.topics, "display/power", "ON")
            #expect(await eventually { read("\(panel)/bl_power") == "0" && read("\(panel)/brightness") == "102" })
            #expect(await client.latest(node.topics.display) { $0["brightness"] == 40 && $0["screen"] == "on" } != nil)

            let discovery = try #require(await client.latest("homeassistant/device/\(node.nodeID)/config") { _ in true })
            #expect(discovery["cmps"]?["screen"]?["p"] == "light")
            #expect(discovery["cmps"]?["face_theme"]?["p"] == "select")
        }
    }

    @Test("a named backlight that does not exist is reported in B/status, and the node runs on without a screen")
    func missingBacklight() async throws {
        try await withNode(environment: ["NOISECLOCK_DISPLAY_BACKLIGHT": "/nonexistent/backlight/panel"]) { node, _, client in
            let status = try #require(await client.latest(node.topics.status) { _ in true })
            let problems = status["problems"]?.serialized ?? ""
            #expect(problems.contains("display.backlight"), "\(problems)")
            #expect(try await client.request(node.topics, "ping")["status"] == "ok")
            #expect(await client.latest(node.topics.display) { $0["backlight"] == .null } != nil)
        }
    }
}
