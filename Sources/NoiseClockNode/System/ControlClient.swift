import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT

/// `noiseclock ctl`: sends one command to a running node and waits for its answer.
///
/// On MQTT 5 the request carries a Response Topic private to this call and random Correlation
/// Data; on 3.1.1 it waits on `B/response/VERB` for its own `transaction` (or, when the payload
/// cannot carry one, for the first answer).
public enum ControlClient {
    public enum Outcome: Sendable {
        case answered(CommandResponse, raw: String)
        case timedOut
    }

    public static func send(
        verb: String, payload: String, configuration: Configuration, timeout: Duration, logger: Logger
    ) async throws -> Outcome {
        let topics = configuration.topics
        let token = (0..<12).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        let clientID = "noiseclock-ctl-\(token)"
        let client = try MQTTClient(
            options: try MQTTSettings.options(for: configuration, clientID: clientID, availability: false), logger: logger)
        let useProperties = client.supportsProperties
        let responseTopic = useProperties ? "\(topics.node)/response/ctl/\(token)" : topics.response(verb)
        let (body, transaction) = useProperties ? (payload, nil) : addingTransaction(token, to: payload)
        client.subscribe([responseTopic])
        client.start()

        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            group.addTask {
                var messages = client.messages.makeAsyncIterator()
                for await event in client.events where event == .subscribed {
                    let correlation = Array(token.utf8)
                    client.publish(
                        MQTTMessage(
                            topic: topics.command(verb), payload: Array(body.utf8), qos: 1,
                            responseTopic: useProperties ? responseTopic : nil, correlationData: useProperties ? correlation : nil))
                    while let message = await messages.next() {
                        guard message.topic == responseTopic,
                              let value = try? JSONValue.parse(message.payload), let response = decode(value)
                        else { continue }
                        if useProperties, message.correlationData != correlation { continue }
                        if !useProperties, let transaction, response.transaction != transaction { continue }
                        return .answered(response, raw: message.text)
                    }
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            await client.stop(timeout: .milliseconds(300))
            return first ?? .timedOut
        }
    }

    /// Adds `transaction` to an object payload or makes one for an empty payload; a bare value is left as it is.
    static func addingTransaction(_ token: String, to payload: String) -> (String, JSONValue?) {
        let transaction = JSONValue.string("ctl-\(token)")
        switch CommandPayload.decode(Array(payload.utf8)) {
        case (.success(.empty), _):
            return (JSONValue.object(["transaction": transaction]).serialized, transaction)
        case (.success(.object(var members)), let existing):
            members["transaction"] = existing ?? transaction
            return (JSONValue.object(members).serialized, existing ?? transaction)
        default:
            return (payload, nil)
        }
    }

    static func decode(_ value: JSONValue) -> CommandResponse? {
        guard let members = value.objectValue, let status = members["status"]?.stringValue else { return nil }
        let transaction = members["transaction"]
        if status == "ok" { return CommandResponse(.success(members["data"] ?? .null), transaction: transaction) }
        let error = members["error"]?.objectValue ?? [:]
        let code = CommandError.Code(rawValue: error["code"]?.stringValue ?? "") ?? .internal
        return CommandResponse(
            .failure(CommandError(code, error["message"]?.stringValue ?? "", field: error["field"]?.stringValue)),
            transaction: transaction)
    }
}
