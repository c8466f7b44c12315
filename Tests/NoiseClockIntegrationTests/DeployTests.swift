import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// The checkout's root, from this file's path.
private let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

@Suite("Deployment files: the systemd unit and the example Mosquitto ACL")
struct DeployTests {
    @Test("systemd-analyze verify accepts deploy/noiseclock.service (pointed at the built binary)")
    func unitVerifies() async throws {
        let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = try #require(analyze, "systemd-analyze is missing (package systemd)")
        let directory = try makeTemporaryDirectory("unit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unit = try String(contentsOfFile: "\(checkout)/deploy/noiseclock.service", encoding: .utf8)
        #expect(unit.contains("Type=notify") && unit.contains("WatchdogSec=") && unit.contains("Restart=on-failure"))
        for hardening in ["DynamicUser=yes", "SupplementaryGroups=audio video", "StateDirectory=noiseclock", "ProtectSystem=strict",
                          "ProtectHome=yes", "NoNewPrivileges=yes", "PrivateTmp=yes", "RestrictAddressFamilies=",
                          "LoadCredential=mqtt-password:noiseclock.mqtt-password", "LoadCredential=face-token:noiseclock.face-token"] {
            #expect(unit.contains(hardening), "\(hardening)")
        }
        let local = unit.replacingOccurrences(of: "/usr/bin/noiseclock", with: NoiseClockBinary.path)
        try local.write(toFile: "\(directory)/noiseclock.service", atomically: true, encoding: .utf8)
        let verified = try await runToEnd(tool, ["verify", "--man=no", "\(directory)/noiseclock.service"])
        #expect(verified.code == 0, "\(verified.output)")
        #expect(!verified.output.contains("noiseclock.service:"), "warnings: \(verified.output)")
    }

    @Test("systemd-analyze verify accepts deploy/noiseclock-kiosk.service: cage and Chromium on tty7, restarted when the browser crashes")
    func kioskUnitVerifies() async throws {
        let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = try #require(analyze, "systemd-analyze is missing (package systemd)")
        let directory = try makeTemporaryDirectory("kiosk-unit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unit = try String(contentsOfFile: "\(checkout)/deploy/noiseclock-kiosk.service", encoding: .utf8)
        for line in ["Restart=always", "PAMName=login", "TTYPath=/dev/tty7", "Wants=noiseclock.service", "--kiosk", "http://127.0.0.1:8080/"] {
            #expect(unit.contains(line), "\(line)")
        }
        // cage may not be installed where the tests run: verify the unit around an executable that is.
        let local = unit.replacingOccurrences(of: "/usr/bin/cage", with: "/usr/bin/env")
            .replacingOccurrences(of: "User=kiosk", with: "User=root")
        try local.write(toFile: "\(directory)/noiseclock-kiosk.service", atomically: true, encoding: .utf8)
        let verified = try await runToEnd(tool, ["verify", "--man=no", "\(directory)/noiseclock-kiosk.service"])
        #expect(verified.code == 0, "\(verified.output)")
        #expect(!verified.output.contains("noiseclock-kiosk.service:"), "warnings: \(verified.output)")
    }

    @Test("the version is the VERSION file's, in --version as in the package (one place)")
    func versionFromFile() async throws {
        let file = try String(contentsOfFile: "\(checkout)/VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(file.wholeMatch(of: /[0-9][0-9A-Za-z.+~-]*/) != nil, "VERSION holds \(file)")
        let printed = try await runToEnd(NoiseClockBinary.path, ["--version"])
        #expect(printed.code == 0)
        #expect(printed.output.trimmingCharacters(in: .whitespacesAndNewlines) == file)
    }

    @Test("noiseclock sounds, found through $PATH and run from another folder, lists the catalog beside the binary")
    func soundsThroughPath() async throws {
        // argv[0] is then the bare name; the catalog is found from /proc/self/exe (as for the package's /usr/bin).
        let folder = URL(fileURLWithPath: NoiseClockBinary.path).deletingLastPathComponent().path
        let listed = try await runToEnd("/bin/sh", ["-c", "cd / && PATH='\(folder)':/usr/bin:/bin exec noiseclock sounds --config /dev/null"])
        #expect(listed.code == 0, "\(listed.output)")
        #expect(listed.output.contains("heavy-rain-white-noise.mp3") && listed.output.contains("singing-bowl"), "\(listed.output)")
    }

    @Test("the binary loads neither Foundation's ICU-based libraries nor a YAML library of Swift's: only FoundationEssentials")
    func noICU() async throws {
        // ICU's time zones and date formats were a quarter of an idle node's memory (SPEC §7's RSS row).
        let linked = try await runToEnd("/usr/bin/ldd", [NoiseClockBinary.path])
        #expect(linked.code == 0, "\(linked.output)")
        #expect(linked.output.contains("libFoundationEssentials.so"))
        #expect(linked.output.contains("libyaml"))
        // libical (which links ICU) lives in the noiseclock-calendar helper, never here.
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libicu", "libical"] {
            #expect(!linked.output.contains(library), "\(library) is linked:\n\(linked.output)")
        }
    }

    @Test("the example ACL: a node logged in as its id works, and cannot write to another node's topics")
    func aclConfinesNode() async throws {
        let directory = try makeTemporaryDirectory("acl")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let passwords = "\(directory)/passwd"
        // -c creates the file with the first user; -b takes the password from the command line.
        var first = true
        for (user, password) in [("bedroom", "pw-bedroom"), ("kitchen", "pw-kitchen"), ("homeassistant", "pw-ha")] {
            let made = try await runToEnd("/usr/bin/mosquitto_passwd", (first ? ["-c"] : []) + ["-b", passwords, user, password])
            #expect(made.code == 0, "\(made.output)")
            first = false
        }
        let listeners = """
            listener {port} 127.0.0.1
            allow_anonymous false
            password_file \(passwords)
            acl_file \(checkout)/deploy/mosquitto/noiseclock.acl
            """
        try await withBroker(listeners: listeners) { broker in
            // Home Assistant's login watches; the node logs in as its id.
            try await withNode(
                on: broker, nodeID: "bedroom",
                environment: ["NOISECLOCK_MQTT_USERNAME": "bedroom", "NOISECLOCK_MQTT_PASSWORD": "pw-bedroom"],
                subscriptions: { _ in ["noiseclock/#", "homeassistant/#"] }, username: "homeassistant", password: "pw-ha"
            ) { node, process, ha in
                #expect(await ha.waitFor(node.topics.availability) { $0.text == "online" } != nil, "log:\n\(process.log)")
                #expect(await ha.waitFor("homeassistant/device/bedroom/config") != nil, "discovery is allowed")
                let ping = try await ha.request(node.topics, "ping")
                #expect(ping["status"] == "ok")

                // The node's credentials cannot reach into another node's topics.
                try await withClient(
                    port: broker.port, subscriptions: ["noiseclock/bedroom/response/#"], username: "bedroom", password: "pw-bedroom"
                ) { intruder in
                    ha.clear()
                    intruder.publish("noiseclock/kitchen/cmd/dismiss", "PRESS")
                    intruder.publish("noiseclock/kitchen/alarms", "[]", retain: true)
                    intruder.publish("noiseclock/bedroom/probe", "mine")
                    #expect(await ha.waitFor("noiseclock/bedroom/probe") != nil)
                    #expect(ha.messages(on: "noiseclock/kitchen/cmd/dismiss").isEmpty)
                    #expect(ha.messages(on: "noiseclock/kitchen/alarms").isEmpty)
                }
            }
        }
    }
}
