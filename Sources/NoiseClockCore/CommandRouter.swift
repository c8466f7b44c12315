/// One command as any transport hands it over: the verb, the payload's raw bytes, and where the
/// answer goes (an MQTT response topic, a WebSocket client, an HTTP request).
public struct Command: Sendable {
    public var verb: String
    public var payload: [UInt8]
    public var reply: @Sendable (CommandResponse) -> Void

    public init(verb: String, payload: [UInt8], reply: @escaping @Sendable (CommandResponse) -> Void) {
        self.verb = verb
        self.payload = payload
        self.reply = reply
    }
}

/// The verbs of one feature (alarms, noise, settings, system), declared together and registered
/// with the router in one place (`Node.commandGroups`).
public protocol CommandGroup: Sendable {
    func addCommands(to router: inout CommandRouter)
}

/// The verbs a node answers, from every transport. Verbs are declared by `CommandGroup`s, each an
/// `add` with its shape and handler; a handler decodes its arguments into typed values first.
public struct CommandRouter: Sendable {
    public typealias Handler = @Sendable (CommandArguments) async throws -> JSONValue

    public struct Route: Sendable {
        public let pattern: VerbPattern
        public let shape: CommandShape
        public let handler: Handler
    }

    public private(set) var routes: [Route] = []

    public init() {}

    /// A router with the verbs of `groups`, in that order.
    public init(groups: [any CommandGroup]) {
        for group in groups { group.addCommands(to: &self) }
    }

    /// Answers `command` through its own reply.
    public func handle(_ command: Command) async {
        command.reply(await respond(verb: command.verb, payload: command.payload))
    }

    /// Registers `pattern` (`ping`, `alarm/{id}/enabled`); the first matching route wins.
    public mutating func add(_ pattern: String, shape: CommandShape = .none, _ handler: @escaping Handler) {
        routes.append(Route(pattern: VerbPattern(pattern), shape: shape, handler: handler))
    }

    /// Decodes and runs one command; every failure becomes an error response, never a throw.
    public func respond(verb: String, payload bytes: [UInt8]) async -> CommandResponse {
        let (payload, transaction) = CommandPayload.decode(bytes)
        let result: Result<JSONValue, CommandError>
        do {
            let payload = try payload.get()
            let parts = verb.split(separator: "/", omittingEmptySubsequences: false)
            guard let (route, path) = routes.lazy.compactMap({ route in route.pattern.match(parts: parts).map { (route, $0) } }).first
            else {
                throw CommandError(.unknownVerb, "unknown verb \"\(verb)\"")
            }
            let arguments = try CommandArguments(payload: payload, shape: route.shape, verb: verb, path: path)
            result = .success(try await route.handler(arguments))
        } catch let error as CommandError {
            result = .failure(error)
        } catch {
            result = .failure(CommandError(.internal, "\(error)"))
        }
        return CommandResponse(result, transaction: transaction)
    }
}
