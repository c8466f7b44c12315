import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// An MQTT client on libmosquitto, served on the node's event loop (see MQTTNetworkLoop.swift).
///
/// - Reconnects with a doubling delay (1 s … 30 s by default) and, after every connect, restores
///   the subscriptions, publishes `online` and every retained message it has published before.
/// - `publish` never blocks: while the broker is away or slow, messages wait in a queue of
///   `queueLimit`; when it is full the oldest non-retained message is dropped (retained ones are
///   kept as the latest value per topic and published again on the next connect anyway).
/// - The session is clean (no broker-side queue while offline), so commands sent to an offline
///   node are never delivered late.
/// - Idle, it does not wake: the loop sleeps until the broker sends something or the keepalive is
///   due, and what the loop thread publishes it writes to the socket at once.
public final class MQTTClient: MQTTTransport, @unchecked Sendable {
    // @unchecked Sendable: `handle` is used on the loop thread (and by the connect thread while the
    // loop leaves it alone); the state publishers share is in `state`, the loop's own in `link`.

    struct State {
        var connected = false
        var stopping = false
        var needsRestore = false
        var inFlight = 0
        var queue: [MQTTMessage] = []
        var retained: [String: MQTTMessage] = [:]
        var retainedOrder: [String] = []
        var subscriptions: [String] = []
        /// Subscriptions sent on this connection and not yet acknowledged, by message id.
        var pendingSubscriptions: [Int32: String] = [:]
        /// Filters the broker has acknowledged on this connection.
        var acknowledged: Set<String> = []
        var droppedMessages = 0
        /// Tasks waiting for room or for the queue to be flushed (MQTTWaiting.swift).
        var waiters = StateWaiters()
    }

    public let options: MQTTOptions
    public let events: AsyncStream<MQTTConnectionEvent>
    private let messageStream: AsyncStream<MQTTMessage>

    let logger: Logger
    let state = Mutex(State())
    let messageContinuation: AsyncStream<MQTTMessage>.Continuation
    let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    private(set) var handle: OpaquePointer?
    private let started = Mutex(false)
    /// The loop the connection is served on.
    let loop: NodeExecutor
    private let sleep: @Sendable (Duration) async throws -> Void
    /// The loop thread's side of the connection.
    let link: Link
    /// The keepalive's deadline, or the end of the wait before the next attempt (CLOCK_MONOTONIC).
    let keepaliveTimer: Int32
    /// Signalled when the connect thread of the latest attempt has ended.
    let connectThread = Mutex<WakeSignal?>(nil)
    /// When the attempt under way began; nil while none is.
    let connectingSince = Mutex<ContinuousClock.Instant?>(nil)

    /// `sleep` is the clock `stop` waits on for the last acknowledgements (the node passes its own).
    public init(
        options: MQTTOptions, logger: Logger, loop: NodeExecutor = .shared,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await TimeSource.shared.sleep(for: $0) }
    ) throws(MQTTError) {
        Self.initializeLibrary
        self.options = options
        self.logger = logger
        self.loop = loop
        self.sleep = sleep
        link = Link(backoff: ReconnectBackoff(minimum: options.minimumReconnectDelay, maximum: options.maximumReconnectDelay))
        (messageStream, messageContinuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingOldest(Self.streamLimit))
        (events, eventContinuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(64))

        keepaliveTimer = nc_mqtt_timerfd_create()
        guard keepaliveTimer >= 0 else { throw MQTTError(operation: "timerfd", code: .system) }
        // Every stored property is set from here: a throw runs `deinit`, which closes the timer
        // (closing it here too would close a number some other thread may have reused).
        guard let handle = mosquitto_new(options.clientID, true, Unmanaged.passUnretained(self).toOpaque()) else {
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
        if keepaliveTimer >= 0 { close(keepaliveTimer) }
    }

    private static let initializeLibrary: Void = { _ = mosquitto_lib_init() }()

    private func check(_ operation: String, _ code: Int32) throws(MQTTError) {
        if code != MOSQ_ERR_SUCCESS.rawValue { throw MQTTError(operation: operation, rawCode: code) }
    }

    // MARK: Receiving

    /// Messages from the broker, for a consumer that wants a stream (a control client, a test);
    /// the node's commands come through `deliver(to:)`. Either one consumer, once: it gets every
    /// message since the start.
    public var messages: AsyncStream<MQTTMessage> {
        loop.onLoop { [self] in
            link.streaming = true
            for message in link.inbox { messageContinuation.yield(message) }
            link.inbox = []
            link.inboxBytes = 0
        }
        return messageStream
    }

    /// Hands every message to `handler` on the loop thread as it is read, without a task or a
    /// hop: those that came before first.
    public func deliver(to handler: @escaping @Sendable (MQTTMessage) -> Void) {
        loop.onLoop { [self] in
            link.handler = handler
            let early = link.inbox
            link.inbox = []
            link.inboxBytes = 0
            for message in early { handler(message) }
        }
    }

    /// What the messages kept for a consumer that has not come yet may hold (`MQTTMessage.heldBytes`);
    /// past it a message is dropped. The node's consumer comes at its start.
    static let inboxByteLimit = 8 << 20
    /// Messages the `messages` stream keeps for a reader that is behind (a control client, a test,
    /// a benchmark's probe; the node reads through `deliver(to:)`).
    static let streamLimit = 50_000

    public var isConnected: Bool { state.withLock { $0.connected } }
    /// Whether the broker has acknowledged `filter` on the connection it has now.
    public func isSubscribed(_ filter: String) -> Bool { state.withLock { $0.connected && $0.acknowledged.contains(filter) } }
    /// Half the queue: room for the events and state a command may publish besides its answer.
    public var hasRoom: Bool { state.withLock { holds(.room, in: $0) } }
    public var supportsProperties: Bool { options.protocolVersion == .v5 }

    /// Resumed by the change that makes room (MQTTWaiting.swift), not by polling.
    public func waitForRoom() async {
        guard !hasRoom else { return }
        await wait(for: .room)
    }

    /// When the connection was last seen in working order: now, unless an attempt to connect has
    /// been under way since then (a connect stuck in DNS or a TLS handshake that never ends). The
    /// loop itself runs the watchdog's task, which proves it is not stuck.
    public var lastHeartbeat: ContinuousClock.Instant {
        connectingSince.withLock { $0 } ?? .now
    }
    /// How many times the loop has served the connection's socket or timer: at most one wake-up each.
    let networkTurns = Atomic<Int>(0)
    /// Mirrors of `state.queue.count` and `state.needsRestore`, written under the state lock and
    /// read without it by the loop after every turn.
    let queueDepth = Atomic<Int>(0)
    let restorePending = Atomic<Bool>(false)

    /// Messages dropped because the queue was full, since start.
    public var droppedMessages: Int { state.withLock { $0.droppedMessages } }

    // MARK: Starting and stopping

    /// Starts connecting, and keeps reconnecting until `stop`.
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        loop.execute { [self] in startLoop() }
    }

    /// Publishes `offline` (when there is an availability topic), waits for the queue to reach the
    /// broker, disconnects cleanly (so the broker drops the last will) and waits for an attempt
    /// to connect that is under way, all within `timeout`.
    public func stop(timeout: Duration = .milliseconds(1500)) async {
        let deadline = ContinuousClock.now + timeout
        if let availability = options.availability {
            publish(MQTTMessage(topic: availability.topic, text: availability.offline, retain: true))
        }
        // Until the last acknowledgement (or write, at QoS 0) resumes the wait, or the deadline.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait(for: .flushed) }
            group.addTask { [sleep] in try? await sleep(timeout * 0.6) }
            await group.next()
            group.cancelAll()
        }
        let wasStarted = started.withLock { $0 }
        state.withLock { $0.stopping = true }
        guard wasStarted else { return }
        let loop = loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.onLoop { [self] in
                stopLoop()
                continuation.resume()
            }
        }
        guard let exited = connectThread.withLock({ $0 }) else { return }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let milliseconds = max(0, Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
        // Waited for on a thread of its own, not the loop's; a timeout is fine: the connect thread
        // may sit in connect() to an unreachable broker, and ends on its own.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Threads.start(name: "mqtt stop") {
                exited.wait(timeout: .milliseconds(milliseconds))
                continuation.resume()
            }
        }
    }

    // MARK: Publishing and subscribing

    /// On the loop thread, a message is handed to libmosquitto and written at once (the socket is
    /// non-blocking); from another thread it is queued and the loop writes it.
    public func publish(_ message: MQTTMessage) {
        let inLoop = loop.inLoop
        let (sent, waiting) = state.withLock { state -> (Bool, Bool) in
            if message.retain {
                if state.retained.updateValue(message, forKey: message.topic) == nil {
                    state.retainedOrder.append(message.topic)
                }
            }
            if inLoop, state.connected, state.queue.isEmpty, state.inFlight < options.inFlightLimit, send(message) {
                state.inFlight += 1
                return (true, false)
            }
            enqueue(message, in: &state)
            return (false, state.connected)
        }
        if sent {
            finishTurn(MOSQ_ERR_SUCCESS.rawValue)
        } else if waiting {
            // Queued while connected (behind others, or from another thread): the loop sends it.
            loop.onLoop { [self] in finishTurn(MOSQ_ERR_SUCCESS.rawValue) }
        }
    }

    public func publishNow(_ message: MQTTMessage) {
        publish(message)
        guard loop.inLoop else { return }
        // Queued behind others: the queue goes to libmosquitto now, then everything to the socket.
        finishTurn(MOSQ_ERR_SUCCESS.rawValue)
        endTurn()
    }

    public func republishRetained() {
        let latest = state.withLock { state in state.retainedOrder.compactMap { state.retained[$0] } }
        for message in latest { publish(message) }
    }

    /// Subscribes now when connected (on the loop), else at the next connect.
    public func subscribe(_ filters: [String]) {
        let new = state.withLock { state -> [String] in
            let new = filters.filter { !state.subscriptions.contains($0) }
            state.subscriptions += new
            return new
        }
        guard !new.isEmpty else { return }
        loop.onLoop { [self] in
            let queued = state.withLock { state -> Bool in
                guard state.connected else { return false }
                subscribeNow(new, in: &state)
                return true
            }
            if queued { finishTurn(MOSQ_ERR_SUCCESS.rawValue) }
        }
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
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            link.packets += 1
            return true
        }
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
                link.packets += 1
                state.pendingSubscriptions[mid] = filter
            } else {
                logger.error("MQTT subscribe failed", metadata: ["filter": "\(filter)", "error": "\(MQTTError(operation: "subscribe", rawCode: rc))"])
            }
        }
    }
}
