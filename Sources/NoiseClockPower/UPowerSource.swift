import CUPower
import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// UPower's display device through libupower-glib, followed through GObject `notify` signals on a
/// GLib main loop of its own thread. UPower leaving the system bus reports `present:false`; when it
/// comes back a new client is made and the readings resume, without a restart.
public struct UPowerSource: BatterySource {
    public let name = "upower"
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// True when a UPower daemon answers on the system bus now.
    public static func answers() -> Bool {
        var error: UnsafeMutablePointer<GError>?
        guard let client = up_client_new_full(nil, &error) else {
            if let error { g_error_free(error) }
            return false
        }
        defer { nc_object_unref(client) }
        return up_client_get_daemon_version(client) != nil
    }

    public func run(report: @escaping @Sendable (BatteryReading) -> Void) async {
        let session = UPowerSession(report: report, logger: logger)
        Threads.start(name: "upower glib") { session.runLoop() }
        await Cancellation.wait()
        session.quit()
    }
}

/// The GLib side. @unchecked Sendable: `client`, `device` and `handler` are only touched on the
/// GLib thread (in `runLoop` and the callbacks it dispatches); `control` is behind a Mutex.
final class UPowerSession: @unchecked Sendable {
    /// g_main_loop_quit may be called from any thread; the pointer itself is only freed on the GLib thread.
    private struct LoopHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct Control {
        var loop: LoopHandle?
        var quitRequested = false
    }

    private let report: @Sendable (BatteryReading) -> Void
    private let logger: Logger
    private let control = Mutex(Control())
    private var client: UnsafeMutablePointer<UpClient>?
    private var device: UnsafeMutablePointer<UpDevice>?
    private var handler: gulong = 0
    private var context: OpaquePointer?
    private var emitPending = false

    init(report: @escaping @Sendable (BatteryReading) -> Void, logger: Logger) {
        self.report = report
        self.logger = logger
    }

    func quit() {
        control.withLock { control in
            control.quitRequested = true
            if let loop = control.loop { g_main_loop_quit(loop.pointer) }
        }
    }

    func runLoop() {
        let context = g_main_context_new()
        self.context = context
        g_main_context_push_thread_default(context)
        guard let loop = g_main_loop_new(context, 0) else { return }
        let handle = LoopHandle(pointer: loop)
        let proceed = control.withLock { control -> Bool in
            guard !control.quitRequested else { return false }
            control.loop = handle
            return true
        }
        if proceed {
            let watch = g_bus_watch_name(
                G_BUS_TYPE_SYSTEM, "org.freedesktop.UPower", G_BUS_NAME_WATCHER_FLAGS_NONE, upowerAppeared, upowerVanished,
                Unmanaged.passUnretained(self).toOpaque(), nil)
            g_main_loop_run(loop)
            g_bus_unwatch_name(watch)
        }
        detach()
        control.withLock { $0.loop = nil }
        g_main_loop_unref(loop)
        g_main_context_pop_thread_default(context)
        self.context = nil
        g_main_context_unref(context)
    }

    fileprivate func attach() {
        detach()
        var error: UnsafeMutablePointer<GError>?
        guard let client = up_client_new_full(nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            logger.warning("UPower appeared but cannot be read", metadata: ["error": "\(message)"])
            report(.absent(source: "upower"))
            return
        }
        self.client = client
        guard let device = up_client_get_display_device(client) else {
            logger.warning("UPower has no display device")
            report(.absent(source: "upower"))
            return
        }
        self.device = device
        handler = nc_signal_connect_notify(device, upowerPropertyChanged, Unmanaged.passUnretained(self).toOpaque())
        logger.info("UPower is on the bus; following its display device")
        emit()
    }

    fileprivate func detach() {
        if let device {
            if handler != 0 { g_signal_handler_disconnect(device, handler) }
            nc_object_unref(device)
        }
        if let client { nc_object_unref(client) }
        device = nil
        client = nil
        handler = 0
    }

    fileprivate func vanished() {
        let wasAttached = client != nil
        detach()
        if wasAttached { logger.warning("UPower left the system bus") }
        report(.absent(source: "upower"))
    }

    /// One reading per burst of property notifications (20 ms), not one per property.
    fileprivate func propertyChanged() {
        guard !emitPending, let context else { return }
        emitPending = true
        nc_run_once_after(context, 20, upowerEmitPending, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func emitPendingReading() {
        emitPending = false
        emit()
    }

    fileprivate func emit() {
        guard let device else { return }
        guard nc_up_device_is_present(device) != 0 else {
            report(.absent(source: "upower"))
            return
        }
        let toEmpty = nc_up_device_time_to_empty(device), toFull = nc_up_device_time_to_full(device)
        report(
            BatteryReading(
                present: true, percentage: nc_up_device_percentage(device),
                state: BatteryState(upowerState: UInt32(nc_up_device_state(device))),
                timeToEmptySeconds: toEmpty > 0 ? Int(toEmpty) : nil, timeToFullSeconds: toFull > 0 ? Int(toFull) : nil,
                source: "upower"))
    }
}

// GLib callbacks: nonisolated free functions that run on the GLib thread and return at once.

private func session(_ data: gpointer?) -> UPowerSession? {
    data.map { Unmanaged<UPowerSession>.fromOpaque($0).takeUnretainedValue() }
}

private let upowerAppeared: GBusNameAppearedCallback = { _, _, _, data in
    session(data)?.attach()
}

private let upowerVanished: GBusNameVanishedCallback = { _, _, data in
    session(data)?.vanished()
}

private let upowerPropertyChanged: nc_notify_callback = { _, _, data in
    session(data)?.propertyChanged()
}

private let upowerEmitPending: nc_source_callback = { data in
    session(data)?.emitPendingReading()
    return 0  // G_SOURCE_REMOVE
}
