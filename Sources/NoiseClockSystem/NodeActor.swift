/// The node's one isolation domain: the features (alarms, timers, the noise, a meditation session,
/// the screen, the guided library) are classes isolated to it, so they call each other
/// synchronously, and an `await` is only ever a wait for something outside (a store's write, a
/// sleep, another thread). Its executor is the node's event loop, `NodeExecutor.shared`: the
/// thread every task of the node runs on anyway.
@globalActor
public actor NodeActor {
    public static let shared = NodeActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { NodeExecutor.shared.asUnownedSerialExecutor() }
}

extension NodeActor {
    /// Runs `body` isolated to the node's actor from synchronous code that runs on the loop
    /// thread already (a watch's handler, a message the MQTT client hands over as it reads it),
    /// without a task or a hop; traps on any other thread. As `MainActor.assumeIsolated` does.
    public static func assumeIsolated<T: Sendable>(_ body: @NodeActor () throws -> T) rethrows -> T {
        NodeExecutor.shared.checkIsolated()
        return try withoutActuallyEscaping(body) { body in
            // The isolation is checked above; the cast only drops it from the type.
            try unsafeBitCast(body, to: (() throws -> T).self)()
        }
    }
}

extension NodeActor {
    /// The one way onto the loop from code that is not isolated to `NodeActor` (a C library's
    /// thread, a nonisolated initializer, NIO's event loop): `body` runs isolated to the actor, at
    /// once when called on the loop thread, else on the loop soon, in the order handed over. No
    /// task is made, so it costs no job.
    public static func onLoop(_ body: @escaping @NodeActor @Sendable () -> Void) {
        NodeExecutor.shared.onLoop { assumeIsolated(body) }
    }
}

extension NodeActor {
    /// A task of the node, isolated to `NodeActor`, with the loop as its executor preference (so
    /// the nonisolated async code it calls, a store's wait, runs on the loop too, never on
    /// libdispatch's pool). For work that a synchronous step starts and does not wait for.
    @discardableResult
    public static func task<T: Sendable>(
        priority: TaskPriority? = nil, _ body: @escaping @NodeActor @Sendable () async -> T
    ) -> Task<T, Never> {
        Task(executorPreference: NodeExecutor.shared, priority: priority) { await body() }
    }
}
