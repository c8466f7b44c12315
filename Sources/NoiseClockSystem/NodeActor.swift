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
