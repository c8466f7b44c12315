import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// An MQTT client on libmosquitto with its own network thread.
///
/// - Reconnects with a doubling delay (1 s … 30 s by default) and, after every connect, restores
///   the subscriptions, publishes `online` and every retained message it has published before.
/// - `publish` never blocks: while the broker is away or slow, messages wait in a queue of
///   `queueLimit`; when it is full the oldest non-retained message is dropped (retained ones are
///   kept as the latest value per topic and published again on the next connect anyway).
/// - The session is clean (no broker-side queue while offline), so commands sent to an offline
///   node are never delivered late.
/// - Idle, it does not wake: a publishing thread writes its packet to the socket itself, and the
///   network thread sleeps until the broker sends something or the keepalive is due (see
///   MQTTNetworkLoop.swift).
public final class MQTTClient: MQTTTransport, @unchecked Sendable {
    // @unchecked Sendable: `handle` is used from the network thread and from publishers; libmosquitto
    // guards it with its own mutexes (mosquitto_threaded_set). All our mutable state is in `state`.

    struct State {
        var connected = false
        var stopping = false
        var needsRestore = false
        var inFlight = 0
        var queue: [MQTTMessage] = []
        var retained: [String: MQTTMessage] = [:]
        var retainedOrder: [String] = []
        var subscriptions: [String] = []
        var pendingSubscriptions: Set<Int32> = []
        var droppedMessages = 0
    }

    public let options: MQTTOptions
    public let messages: AsyncStream<MQTTMessage>
    public let events: AsyncStream<MQTTConnectionEvent>

    let logger: Logger
    let state = Mutex(State())
    let messageContinuation: AsyncStream<MQTTMessage>.Continuation
    let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    /// Ends a pause between reconnects early (stop).
    let wakeUp = WakeSignal()
    private let threadExited = WakeSignal()
    private(set) var handle: OpaquePointer?
    private let started = Mutex(false)
    /// Wakes the network thread's poll: another thread left it something to write, or stops it.
    let wakeFD: Int32
    /// The network thread's keepalive deadline (CLOCK_MONOTONIC), armed by whichever thread sends.
    let keepaliveTimer: Int32
    /// When a packet last went out (CLOCK_MONOTONIC ns), from any thread: the keepalive counts from it.
    let lastSent = Atomic<Int64>(0)
    /// The deadline the keepalive timer is armed for, 0 when none (it expired or was never armed).
    let keepaliveArmed = Mutex<Int64>(0)
    /// Held around every libmosquitto call that touches an open connection (read, write, keepalive,
    /// the stop's DISCONNECT): the network thread's and a publishing thread's `mosquitto_loop_write`
    /// must not meet, nor a write meet the network thread closing the socket (with TLS, a write on
    /// an SSL object the close had just freed crashed a test process). Never held while waiting in
    /// `poll` or connecting, nor taken under `state`'s lock (the callbacks take `state` under it);
    /// a publisher only tries it (`writeNow`).
    let io = Mutex(())

    public init(options: MQTTOptions, logger: Logger) throws(MQTTError) {
        Self.initializeLibrary
        self.options = options
        self.logger = logger
        (messages, messageContinuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingOldest(50_000))
        (events, eventContinuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(64))

        wakeFD = nc_mqtt_eventfd_create()
        keepaliveTimer = nc_mqtt_timerfd_create()
        guard wakeFD >= 0, keepaliveTimer >= 0 else {
            if wakeFD >= 0 { close(wakeFD) }
            if keepaliveTimer >= 0 { close(keepaliveTimer) }
            throw MQTTError(operation: "eventfd/timerfd", code: .system)
        }
        guard let handle = mosquitto_new(options.clientID, true, Unmanaged.passUnretained(self).toOpaque()) else {
            close(wakeFD)
            close(keepaliveTimer)
            throw MQTTError(operation: "mosquitto_new", code: .noMemory)
        }
        self.handle = handle
        try check("threaded mode", mosquitto_threaded_set(handle, true))
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check("protocol version", mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)))
        // Commands and answers are small packets; without this, Nagle's algorithm holds each for ~40 ms.
        try check("TCP_NODELAY", mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1))
        if options.username != nil || options.password != nil {
            try check("credentials", mosquitto_username_pw_set(handle, options.username, options.password))
        }
        if let tls = options.tls {
            let ca = tls.caFile.isEmpty ? nil : tls.caFile
            let caPath = ca == nil ? "/etc/ssl/certs" : nil
            try check(
                "TLS", mosquitto_tls_set(handle, ca, caPath, tls.certFile.isEmpty ? nil : tls.certFile,
                    tls.keyFile.isEmpty ? nil : tls.keyFile, nil))
            try check("TLS insecure", mosquitto_tls_insecure_set(handle, tls.insecure))
        }
        if let availability = options.availability {
            let payload = Array(availability.offline.utf8)
            try check("last will", mosquitto_will_set_v5(handle, availability.topic, Int32(payload.count), payload, 1, true, nil))
        }
        mosquitto_connect_v5_callback_set(handle, onConnect)
        mosquitto_disconnect_v5_callback_set(handle, onDisconnect)
        mosquitto_publish_v5_callback_set(handle, onPublish)
        mosquitto_message_v5_callback_set(handle, onMessage)
        mosquitto_subscribe_v5_callback_set(handle, onSubscribe)
    }

    deinit {
        messageContinuation.finish()
        eventContinuation.finish()
        if let handle { mosquitto_destroy(handle) }
        close(wakeFD)
        close(keepaliveTimer)
    }

    private static let initializeLibrary: Void = { _ = mosquitto_lib_init() }()

    private func check(_ operation: String, _ code: Int32) throws(MQTTError) {
        if code != MOSQ_ERR_SUCCESS.rawValue { throw MQTTError(operation: operation, rawCode: code) }
    }

    public var isConnected: Bool { state.withLock { $0.connected } }
    public var supportsProperties: Bool { options.protocolVersion == .v5 }

    public func waitForRoom() async {
        // Half the queue: room for the events and state a command may publish besides its answer.
        while state.withLock({ $0.connected && $0.queue.count >= options.queueLimit / 2 }) {
            try? await TimeSource.shared.sleep(for: .milliseconds(1))
            if Task.isCancelled { return }
        }
    }

    /// When the network thread was last seen alive: now while it waits for the socket (a quiet
    /// connection is a live one), else when it last went round its loop or woke in a pause between
    /// reconnects. A watchdog tells a hung thread (stuck in a callback or a connect) from a quiet one by it.
    public var lastHeartbeat: ContinuousClock.Instant {
        parked.load(ordering: .acquiring) ? .now : heartbeat.withLock { $0 }
    }
    let heartbeat = Mutex(ContinuousClock.now)
    /// True while the network thread waits in poll.
    let parked = Atomic<Bool>(false)
    /// How many times the network thread has come out of poll: at most one wake-up each.
    let networkTurns = Atomic<Int>(0)
    /// Mirrors of `state.queue.count` and `state.needsRestore`, written under the state lock and
    /// read without it: the network thread checks them after every loop, and taking the lock
    /// there each time made it wait on a command's answer being written (the lock is held while
    /// libmosquitto writes the packet).
    let queueDepth = Atomic<Int>(0)
    let restorePending = Atomic<Bool>(false)

    /// Messages dropped because the queue was full, since start.
    public var droppedMessages: Int { state.withLock { $0.droppedMessages } }

    // MARK: Starting and stopping

    /// Starts the network thread, which connects and keeps reconnecting until `stop`.
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        Threads.start(name: "mqtt network") { [self] in
            networkLoop()
            threadExited.signal()
        }
    }

    /// Publishes `offline` (when there is an availability topic), waits for the queue to reach the
    /// broker, disconnects cleanly (so the broker drops the last will) and ends the network thread,
    /// all within `timeout`.
    public func stop(timeout: Duration = .milliseconds(1500)) async {
        let deadline = ContinuousClock.now + timeout
        if let availability = options.availability {
            publish(MQTTMessage(topic: availability.topic, text: availability.offline, retain: true))
        }
        let flushDeadline = ContinuousClock.now + timeout * 0.6
        while ContinuousClock.now < flushDeadline {
            let done = state.withLock { !$0.connected || ($0.queue.isEmpty && $0.inFlight == 0) }
            if done { break }
            try? await TimeSource.shared.sleep(for: .milliseconds(5))
        }
        let wasStarted = started.withLock { $0 }
        state.withLock { $0.stopping = true }
        if let handle, state.withLock({ $0.connected }) {
            // DISCONNECT is written here, like a publish; the network thread then finds the socket
            // closed. (Only on an open connection: while the network thread connects, it is its own.)
            io.withLock { _ in
                _ = mosquitto_disconnect_v5(handle, 0, nil)
                _ = mosquitto_loop_write(handle, 1)
            }
        }
        interruptPause()
        guard wasStarted else { return }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let milliseconds = max(0, Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
        let exited = threadExited
        // Waited for on a thread of its own, not the executor's; a timeout is fine: the network
        // thread may sit in connect() to an unreachable broker, and ends on its own.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Threads.start(name: "mqtt stop") {
                exited.wait(timeout: .milliseconds(milliseconds))
                continuation.resume()
            }
        }
    }

    // MARK: Publishing and subscribing

    public func publish(_ message: MQTTMessage) {
        let (sent, waiting) = state.withLock { state -> (Bool, Bool) in
            if message.retain {
                if state.retained.updateValue(message, forKey: message.topic) == nil {
                    state.retainedOrder.append(message.topic)
                }
            }
            if state.connected, state.queue.isEmpty, state.inFlight < options.inFlightLimit, send(message) {
                state.inFlight += 1
                return (true, false)
            }
            enqueue(message, in: &state)
            return (false, state.connected)
        }
        if sent {
            writeNow()
        } else if waiting {
            // Queued behind others while connected: the network thread sends it as room comes.
            wakeNetworkThread()
        }
    }

    /// Writes what libmosquitto holds for the broker on this thread (the socket is non-blocking)
    /// rather than waiting for the network thread to wake up: that wake-up was most of a command's
    /// round trip, and an idle node's most frequent one. Only what the socket does not take, or a
    /// failure, wakes the network thread.
    func writeNow() {
        guard let handle else { return }
        // Never waits for the lock: a publisher may be a thread of a cooperative pool, which must not
        // block. While the network thread holds it, that thread writes this packet on its turn.
        guard let (rc, more) = io.withLockIfAvailable({ _ in
            let rc = mosquitto_loop_write(handle, 1)
            return (rc, mosquitto_want_write(handle))
        }) else {
            wakeNetworkThread()
            return
        }
        noteSent()
        if rc != MOSQ_ERR_SUCCESS.rawValue || more { wakeNetworkThread() }
    }

    func wakeNetworkThread() {
        nc_mqtt_eventfd_signal(wakeFD)
    }

    public func republishRetained() {
        let latest = state.withLock { state in state.retainedOrder.compactMap { state.retained[$0] } }
        for message in latest { publish(message) }
    }

    public func subscribe(_ filters: [String]) {
        let queued = state.withLock { state -> Bool in
            let new = filters.filter { !state.subscriptions.contains($0) }
            state.subscriptions += new
            if state.connected, !new.isEmpty {
                subscribeNow(new, in: &state)
                return true
            }
            return false
        }
        if queued { wakeNetworkThread() }
    }

    private func enqueue(_ message: MQTTMessage, in state: inout State) {
        if state.queue.count >= options.queueLimit {
            let victim = state.queue.firstIndex { !$0.retain } ?? 0
            state.queue.remove(at: victim)
            state.droppedMessages += 1
            if state.droppedMessages == 1 || state.droppedMessages % 100 == 0 {
                logger.warning("MQTT queue full; dropped the oldest message", metadata: ["dropped": "\(state.droppedMessages)"])
            }
        }
        state.queue.append(message)
        queueDepth.store(state.queue.count, ordering: .releasing)
    }

    /// Hands one message to libmosquitto. False when it cannot take it now (not connected).
    func send(_ message: MQTTMessage) -> Bool {
        guard let handle else { return false }
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if options.protocolVersion == .v5 {
            if let responseTopic = message.responseTopic {
                _ = mosquitto_property_add_string(&properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic)
            }
            if let correlation = message.correlationData, correlation.count <= Int(UInt16.max) {
                _ = correlation.withUnsafeBytes { bytes in
                    mosquitto_property_add_binary(
                        &properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress, UInt16(bytes.count))
                }
            }
        }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { payload in
            mosquitto_publish_v5(
                handle, &mid, message.topic, Int32(payload.count), payload.baseAddress, Int32(message.qos), message.retain,
                properties)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue { return true }
        if rc != MOSQ_ERR_NO_CONN.rawValue {
            logger.error("MQTT publish failed", metadata: ["topic": "\(message.topic)", "error": "\(MQTTError(operation: "publish", rawCode: rc))"])
        }
        return false
    }

    func subscribeNow(_ filters: [String], in state: inout State) {
        guard let handle else { return }
        for filter in filters {
            var mid: Int32 = 0
            let rc = mosquitto_subscribe_v5(handle, &mid, filter, 1, 0, nil)
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                state.pendingSubscriptions.insert(mid)
            } else {
                logger.error("MQTT subscribe failed", metadata: ["filter": "\(filter)", "error": "\(MQTTError(operation: "subscribe", rawCode: rc))"])
            }
        }
    }
}
