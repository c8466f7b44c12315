/// The verbs a node answers. Adding a verb is one `add` call with its shape and handler.
public struct CommandRouter: Sendable {
    public typealias Handler = @Sendable (CommandArguments) async throws -> JSONValue

    public struct Route: Sendable {
        public let pattern: VerbPattern
        public let shape: CommandShape
        public let handler: Handler
    }

    public private(set) var routes: [Route] = []

    public init() {}

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
            guard let (route, path) = routes.lazy.compactMap({ route in route.pattern.match(verb).map { (route, $0) } }).first
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
