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
    /// Run on the caller's executor (`nonisolated(nonsending)`, SE-0461): called from the node's
    /// loop, a handler and the feature it calls run there with no hop between them, so a command
    /// costs a job only where it really waits (a store's write).
    public typealias Handler = nonisolated(nonsending) @Sendable (CommandArguments) async throws -> JSONValue
    /// A handler that never waits: its answer is ready when it returns (`ping`).
    public typealias ImmediateHandler = @Sendable (CommandArguments) throws -> JSONValue

    public struct Route: Sendable {
        public let pattern: VerbPattern
        public let shape: CommandShape
        public let handler: Handler
        /// Set for a route added with `addImmediate`: `respondNow` answers it without a task.
        public let immediate: ImmediateHandler?
    }

    public private(set) var routes: [Route] = []
    /// The first route of each verb without placeholders, by its text, and where the routes with
    /// placeholders are, in order: most verbs are found without splitting them or trying each route.
    private var literalRoutes: [String: Int] = [:]
    private var placeholderRoutes: [Int] = []

    public init() {}

    /// A router with the verbs of `groups`, in that order.
    public init(groups: [any CommandGroup]) {
        for group in groups { group.addCommands(to: &self) }
    }

    /// Answers `command` through its own reply.
    nonisolated(nonsending) public func handle(_ command: Command) async {
        command.reply(await respond(verb: command.verb, payload: command.payload))
    }

    /// Registers `pattern` (`ping`, `alarm/{id}/enabled`); the first matching route wins.
    public mutating func add(_ pattern: String, shape: CommandShape = .none, _ handler: @escaping Handler) {
        append(Route(pattern: VerbPattern(pattern), shape: shape, handler: handler, immediate: nil))
    }

    /// Registers a verb whose handler never waits and may run on any thread (it reads what it
    /// answers under the locks of what it reads): an idle node answers it as it is read.
    public mutating func addImmediate(_ pattern: String, shape: CommandShape = .none, _ handler: @escaping ImmediateHandler) {
        append(Route(pattern: VerbPattern(pattern), shape: shape, handler: { try handler($0) }, immediate: handler))
    }

    private mutating func append(_ route: Route) {
        if route.pattern.hasPlaceholders {
            placeholderRoutes.append(routes.count)
        } else if literalRoutes[route.pattern.description] == nil {
            literalRoutes[route.pattern.description] = routes.count
        }
        routes.append(route)
    }

    /// Decodes and runs one command; every failure becomes an error response, never a throw.
    nonisolated(nonsending) public func respond(verb: String, payload bytes: [UInt8]) async -> CommandResponse {
        let (payload, transaction) = CommandPayload.decode(bytes)
        let result: Result<JSONValue, CommandError>
        do {
            let (route, arguments) = try resolve(verb: verb, payload: payload.get())
            result = .success(try await route.handler(arguments))
        } catch {
            result = .failure(Self.commandError(error))
        }
        return CommandResponse(result, transaction: transaction)
    }

    /// The answer to a command whose verb never waits (`addImmediate`), or whose payload or verb
    /// is refused, the same as `respond` gives; nil for a verb that may wait (run `respond`).
    public func respondNow(verb: String, payload bytes: [UInt8]) -> CommandResponse? {
        let (payload, transaction) = CommandPayload.decode(bytes)
        let result: Result<JSONValue, CommandError>
        do {
            let (route, arguments) = try resolve(verb: verb, payload: payload.get())
            guard let immediate = route.immediate else { return nil }
            result = .success(try immediate(arguments))
        } catch {
            result = .failure(Self.commandError(error))
        }
        return CommandResponse(result, transaction: transaction)
    }

    /// Why `verb` with `payload` would be refused before it runs (an unknown verb, a payload that
    /// does not fit its shape), or nil: how the configured buttons' commands are checked at start.
    public func problem(verb: String, payload bytes: [UInt8]) -> CommandError? {
        let (payload, _) = CommandPayload.decode(bytes)
        do {
            _ = try resolve(verb: verb, payload: payload.get())
            return nil
        } catch {
            return Self.commandError(error)
        }
    }

    /// The first route matching `verb`, with the payload decoded into its arguments.
    private func resolve(verb: String, payload: CommandPayload) throws(CommandError) -> (Route, CommandArguments) {
        let literal = literalRoutes[verb]
        var parts: [Substring]?
        for index in placeholderRoutes where index < literal ?? routes.count {
            let split = parts ?? verb.split(separator: "/", omittingEmptySubsequences: false)
            parts = split
            if let path = routes[index].pattern.match(parts: split) {
                return (routes[index], try CommandArguments(payload: payload, shape: routes[index].shape, verb: verb, path: path))
            }
        }
        guard let literal else { throw CommandError(.unknownVerb, "unknown verb \"\(verb)\"") }
        return (routes[literal], try CommandArguments(payload: payload, shape: routes[literal].shape, verb: verb))
    }

    private static func commandError(_ error: any Error) -> CommandError {
        (error as? CommandError) ?? CommandError(.internal, "\(error)")
    }
}
