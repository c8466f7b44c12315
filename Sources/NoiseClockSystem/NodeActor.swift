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
