import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

@Suite("Broker restarts and TLS")
struct ResilienceTests {
    @Test("after the broker is killed and restarted the node reconnects, restores retained state and answers again")
    func brokerRestart() async throws {
        try await withBroker { broker in
            try await withStopping(NodeProcess(port: broker.port)) { node in
                let process = try node.start()
                // Seen online by a client that is gone before the broker is killed (so not withNode's).
                try await withClient(port: broker.port, subscriptions: [node.topics.availability]) { first in
                    _ = await first.waitFor(node.topics.availability) { $0.text == "online" }
                }

                // The broker keeps no persistence: every retained message is gone with it.
                await broker.kill()
                try await Task.sleep(for: .milliseconds(1500))
                try await broker.start()
                let restarted = ContinuousClock.now

                try await withClient(port: broker.port, subscriptions: ["\(node.topics.node)/#"]) { client in
                    let online = await client.waitFor(node.topics.availability, timeout: .seconds(20)) { $0.text == "online" }
                    #expect(online != nil, "node did not come back; log:\n\(process.log)")
                    let back = ContinuousClock.now - restarted
                    // The doubling backoff after two failed attempts (1 s, 2 s) stays well under 10 s.
                    #expect(back < .seconds(10))
                    for topic in [node.topics.status, node.topics.settings, node.topics.clock] {
                        #expect(await client.waitFor(topic) != nil, "\(topic) not republished")
                    }
                    let ping = try await client.request(node.topics, "ping")
                    #expect(ping["status"] == "ok")
                    process.signal(SIGTERM)
                    #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
                }
            }
        }
    }

    @Test("TLS with a CA and a password file: the node connects, answers, and never logs the password")
    func tlsWithPasswordFile() async throws {
        let directory = try makeTemporaryDirectory("tls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await makeCertificates(in: directory)
        let password = "s3cret-\(UUID().uuidString.prefix(6))"
        let passwordFile = "\(directory)/mosquitto.passwd"
        let made = try await runToEnd("/usr/bin/mosquitto_passwd", ["-b", "-c", passwordFile, "clock", password])
        #expect(made.code == 0, "\(made.output)")
        try "\(password)\n".write(toFile: "\(directory)/node.password", atomically: true, encoding: .utf8)

        let listeners = """
            listener {port} 127.0.0.1
            allow_anonymous false
            password_file \(passwordFile)
            cafile \(directory)/ca.crt
            certfile \(directory)/server.crt
            keyfile \(directory)/server.key
            """
        try await withBroker(listeners: listeners) { broker in
            let environment = [
                "NOISECLOCK_MQTT_USERNAME": "clock", "NOISECLOCK_MQTT_PASSWORD_FILE": "\(directory)/node.password",
                "NOISECLOCK_MQTT_TLS_ENABLED": "true", "NOISECLOCK_MQTT_TLS_CA_FILE": "\(directory)/ca.crt",
            ]
            try await withNode(
                on: broker, environment: environment, tls: .init(caFile: "\(directory)/ca.crt"), username: "clock", password: password,
                logLevel: "trace"
            ) { node, process, client in
                #expect(await client.waitFor(node.topics.availability) { $0.text == "online" } != nil, "log:\n\(process.log)")
                let ping = try await client.request(node.topics, "ping")
                #expect(ping["status"] == "ok")

                // A wrong password is refused; the node stays up, and neither password reaches its log.
                let wrong = try NodeProcess(port: broker.port, environment: [
                    "NOISECLOCK_MQTT_USERNAME": "clock", "NOISECLOCK_MQTT_PASSWORD": "wrong-horse-battery",
                    "NOISECLOCK_MQTT_TLS_ENABLED": "true", "NOISECLOCK_MQTT_TLS_CA_FILE": "\(directory)/ca.crt",
                ])
                try await withStopping(wrong.start(logLevel: "trace")) { refused in
                    try await Task.sleep(for: .seconds(1.5))
                    #expect(refused.isRunning)
                    #expect(client.messages(on: wrong.topics.availability).isEmpty)
                    #expect(refused.log.contains("refused"))
                    #expect(!refused.log.contains("wrong-horse-battery"))

                    process.signal(SIGTERM)
                    #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
                    #expect(!process.log.contains(password))
                }
            }
        }
    }

    @Test("TLS with a client certificate: a broker that requires one accepts the node")
    func tlsClientCertificate() async throws {
        let directory = try makeTemporaryDirectory("tls-client")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await makeCertificates(in: directory)
        for step in [
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=noiseclock-node",
             "-keyout", "\(directory)/client.key", "-out", "\(directory)/client.csr"],
            ["x509", "-req", "-in", "\(directory)/client.csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key",
             "-CAcreateserial", "-days", "2", "-out", "\(directory)/client.crt"],
        ] {
            let result = try await runToEnd("/usr/bin/openssl", step)
            #expect(result.code == 0, "openssl \(step[0]): \(result.output)")
        }
        let listeners = """
            listener {port} 127.0.0.1
            allow_anonymous true
            require_certificate true
            cafile \(directory)/ca.crt
            certfile \(directory)/server.crt
            keyfile \(directory)/server.key
            """
        try await withBroker(listeners: listeners) { broker in
            let tls = [
                "NOISECLOCK_MQTT_TLS_ENABLED": "true", "NOISECLOCK_MQTT_TLS_CA_FILE": "\(directory)/ca.crt",
                "NOISECLOCK_MQTT_TLS_CERT_FILE": "\(directory)/client.crt", "NOISECLOCK_MQTT_TLS_KEY_FILE": "\(directory)/client.key",
            ]
            try await withNode(
                on: broker, environment: tls, subscriptions: { [$0.availability] },
                tls: .init(caFile: "\(directory)/ca.crt", certFile: "\(directory)/client.crt", keyFile: "\(directory)/client.key")
            ) { node, process, client in
                #expect(await client.waitFor(node.topics.availability) { $0.text == "online" } != nil, "log:\n\(process.log)")

                // Without the certificate the same broker turns the node away.
                var withoutCertificate = tls
                withoutCertificate["NOISECLOCK_MQTT_TLS_CERT_FILE"] = ""
                withoutCertificate["NOISECLOCK_MQTT_TLS_KEY_FILE"] = ""
                let refused = try NodeProcess(port: broker.port, environment: withoutCertificate)
                try await withStopping(refused.start()) { refusedProcess in
                    try await Task.sleep(for: .seconds(1.5))
                    #expect(refusedProcess.isRunning)
                    #expect(client.messages(on: refused.topics.availability).isEmpty)

                    process.signal(SIGTERM)
                    #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
                }
            }
        }
    }

    private func makeCertificates(in directory: String) async throws {
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=NoiseClock Test CA",
             "-keyout", "\(directory)/ca.key", "-out", "\(directory)/ca.crt"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
             "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr"],
            ["x509", "-req", "-in", "\(directory)/server.csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "\(directory)/san.ext", "-out", "\(directory)/server.crt"],
        ]
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(directory)/san.ext", atomically: true, encoding: .utf8)
        for step in steps {
            let result = try await runToEnd("/usr/bin/openssl", step)
            #expect(result.code == 0, "openssl \(step[0]): \(result.output)")
        }
    }
}
