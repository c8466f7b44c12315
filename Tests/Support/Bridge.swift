import Foundation

/// The example of `deploy/mosquitto-bridge`: an office broker, and a floor broker whose bridge
/// connects to it. Each runs its shipped file as it is, with only the listener moved to a free
/// 127.0.0.1 port and the bridge's `address` pointed at the office's, so the example is what the
/// tests run.
public final class BridgedBrokers: Sendable {
    /// Where Home Assistant and the controllers connect.
    public let office: Broker
    /// Where the nodes connect; it runs the bridge.
    public let floor: Broker
    /// The bridge's client id on the office broker (`remote_clientid` in floor.conf).
    public let bridgeClientID: String

    /// `$SYS/broker/connection/<remote_clientid>/state`: `1` while the bridge is up, `0` once it is
    /// down (the bridge's last will on the office broker).
    public var bridgeStateTopic: String { "$SYS/broker/connection/\(bridgeClientID)/state" }

    /// The shipped example's folder in this checkout.
    public static let exampleDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/mosquitto-bridge").path

    /// Starts the office broker, then the floor broker, and returns once the office has seen the
    /// bridge come up (its `1` on `bridgeStateTopic`).
    public init() async throws {
        let officeFile = try String(contentsOfFile: "\(Self.exampleDirectory)/office.conf", encoding: .utf8)
        let floorFile = try String(contentsOfFile: "\(Self.exampleDirectory)/floor.conf", encoding: .utf8)
        let clientIDs = floorFile.settings("remote_clientid")
        guard clientIDs.count == 1, let clientID = clientIDs.first else {
            throw ExampleError(file: "floor.conf", problem: "expected one remote_clientid, found \(clientIDs)")
        }
        bridgeClientID = clientID
        office = try await Broker(listeners: try Self.onLoopback(officeFile, file: "office.conf", officePort: nil))
        // A throw from here on drops `office`, whose deinit kills it.
        floor = try await Broker(listeners: try Self.onLoopback(floorFile, file: "floor.conf", officePort: office.port))
        let stateTopic = "$SYS/broker/connection/\(clientID)/state"
        let up = try await withClient(port: office.port, subscriptions: [stateTopic]) { watcher in
            await watcher.waitFor(stateTopic, timeout: .seconds(15)) { $0.text == "1" } != nil
        }
        guard up else {
            throw ExampleError(file: "floor.conf", problem: "the bridge did not come up; logs:\n\(Self.logs(of: floor))\n\(Self.logs(of: office))")
        }
    }

    /// The shipped configuration with its one `listener` line moved to `{port}` on 127.0.0.1 (the
    /// `Broker` fills in the port) and, for the floor, its one `address` line pointed at the
    /// office's port. Everything else is left as it is; a file of another shape is an error.
    static func onLoopback(_ text: String, file: String, officePort: Int?) throws -> String {
        var listeners = 0, addresses = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            switch line.split(separator: " ").first {
            case "listener":
                listeners += 1
                return "listener {port} 127.0.0.1"
            case "address", "addresses":
                addresses += 1
                return "address 127.0.0.1:\(officePort ?? 0)"
            default:
                return String(line)
            }
        }
        guard listeners == 1, addresses == (officePort == nil ? 0 : 1) else {
            throw ExampleError(file: file, problem: "expected one listener and \(officePort == nil ? "no" : "one") bridge address, "
                + "found \(listeners) and \(addresses)")
        }
        return lines.joined(separator: "\n")
    }

    /// Every log the broker wrote (one per start), for a failure message.
    public static func logs(of broker: Broker) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: broker.directory)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted()
            .compactMap { try? String(contentsOfFile: "\(broker.directory)/\($0)", encoding: .utf8) }
            .joined(separator: "\n")
    }

    public struct ExampleError: Error, CustomStringConvertible {
        public var file: String
        public var problem: String
        public var description: String { "deploy/mosquitto-bridge/\(file): \(problem)" }
    }
}

extension BridgedBrokers: Stoppable {
    /// Kills the floor broker (and with it the bridge), then the office broker.
    public func stop() async {
        await floor.kill()
        await office.kill()
    }
}

/// The example bridge (see `BridgedBrokers`) for `body`, both brokers killed afterwards.
public func withBridgedBrokers<T>(isolation: isolated (any Actor)? = #isolation, _ body: (BridgedBrokers) async throws -> T)
    async throws -> T
{
    try await withStopping(BridgedBrokers(), isolation: isolation, body)
}

extension String {
    /// The values of a Mosquitto setting (`name value`) in a configuration text, comments skipped.
    fileprivate func settings(_ name: String) -> [String] {
        split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ", maxSplits: 1)
            guard words.count == 2, words[0] == name else { return nil }
            return words[1].trimmingCharacters(in: .whitespaces)
        }
    }
}
