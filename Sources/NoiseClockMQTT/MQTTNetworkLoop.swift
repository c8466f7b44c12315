import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import NoiseClockSystem
import Synchronization

/// The connection, served on the node's event loop (`NodeExecutor`). libmosquitto is driven
/// through its external-loop calls (`mosquitto_loop_read`, `mosquitto_loop_write`,
/// `mosquitto_loop_misc`) from handlers of the loop's watches on the broker's socket and on a
/// keepalive timer, rather than from a thread of its own running `mosquitto_loop`:
///
/// - Every libmosquitto call on an open connection runs on the loop thread, so none needs a lock of
///   ours, and a command that comes in is read, run and answered in one wake-up of one thread.
///   A publisher on another thread queues its message and hands the loop a closure that writes it.
/// - `mosquitto_loop` also waits on a socketpair that libmosquitto writes a byte to whenever a
///   packet is queued, and checks the keepalive on every turn. Neither is used: the loop writes
///   what it queued itself, and the keepalive is a timer due a keepalive after the last packet
///   out; only then `mosquitto_loop_misc` sends PINGREQ (libmosquitto pings whenever nothing has
///   come *in* for a keepalive, however much goes out). So a node that publishes its clock every
///   minute pings once a minute with a 30 s keepalive, not twice. A PINGREQ left unanswered for a
///   keepalive closes the connection, as libmosquitto's loop does.
/// - Connecting blocks (DNS, TCP, TLS), so it runs on a short-lived thread, "mqtt connect", and
///   hands the connection to the loop. Between attempts the same timer waits out the backoff.
/// - What a turn queues is written once, at the turn's end (`NodeExecutor.atEndOfTurn`): a
///   command's PUBACK, queued as it is read, and its answer, published by the command's task
///   later in the turn, leave in one TCP segment (the socket is corked around a write of more
///   than one packet). On loopback each segment costs the sender the receiver's whole TCP path.
extension MQTTClient {
    /// How long past the keepalive the ping may wait: packets sent on a regular beat (the clock's
    /// minute) then reliably land before the ping they make unnecessary. libmosquitto's own
    /// keepalive counts in whole seconds; brokers allow 1.5 × the keepalive.
    static let keepaliveGrace: Int64 = 500_000_000
    /// How early the keepalive timer may fire and still count (less than the grace, so
    /// libmosquitto's whole-second check agrees a keepalive has passed): packets that go out
    /// together (the minute's states) move the deadline by less and need not re-arm it.
    static let keepaliveSlack: Int64 = 250_000_000

    /// Where the connection is; the loop thread's alone.
    enum Phase {
        /// Not started, or stopped.
        case idle
        /// The connect thread is at work.
        case connecting
        /// The socket is watched; `wantsWrite` is what the watch asks for besides reading.
        case attached(NodeExecutor.Watch, wantsWrite: Bool)
        /// The timer runs out the backoff before the next attempt.
        case waiting
    }

    /// The connection's side that only the loop thread touches.
    final class Link: @unchecked Sendable {
        // @unchecked Sendable: read and written on the loop thread only.
        var phase = Phase.idle
        var backoff: ReconnectBackoff
        /// Whether this connection got as far as `connected`: libmosquitto reports a loss through
        /// on_disconnect (which clears `state.connected`) before the loop sees it.
        var announced = false
        var keepalive = Keepalive()
        /// The deadline the timer is armed for, 0 when none.
        var timerArmed: Int64 = 0
        var timerWatch: NodeExecutor.Watch?
        /// The write at the end of each of the loop's turns, while started.
        var turnEnd: NodeExecutor.TurnEnd?
        /// When a packet last went out (CLOCK_MONOTONIC ns): the keepalive counts from it.
        var lastSent: Int64 = 0
        /// Something was queued this turn: write it at the turn's end.
        var flushWanted = false
        /// Who takes the messages read: `deliver(to:)`'s handler, or the `messages` stream
        /// (`streaming`); until one comes, they wait in `inbox`.
        var handler: (@Sendable (MQTTMessage) -> Void)?
        var streaming = false
        var inbox: [MQTTMessage] = []
        /// What the inbox holds (`MQTTMessage.heldBytes`), within `inboxByteLimit`.
        var inboxBytes = 0
        /// Messages the read under way has brought, handed on when it returns (`handOverArrived`).
        var arrived: [MQTTMessage] = []
        /// Packets queued since the last write, as far as this side knows (publishes,
        /// subscriptions, acknowledgements of what came in): from two, the write is corked.
        var packets = 0

        init(backoff: ReconnectBackoff) { self.backoff = backoff }
    }

    /// The keepalive in CLOCK_MONOTONIC nanoseconds; 0 for none.
    var keepaliveInterval: Int64 { Int64(max(0, options.keepaliveSeconds)) * 1_000_000_000 }

    var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: Connecting

    /// Starts an attempt on the connect thread (loop thread).
    func beginConnect() {
        guard !isStopping, handle != nil else {
            link.phase = .idle
            return
        }
        link.phase = .connecting
        connectingSince.withLock { $0 = .now }
        let options = options, loop = loop, ended = WakeSignal()
        connectThread.withLock { $0 = ended }
        Threads.start(name: "mqtt connect") { [self] in
            let rc = mosquitto_connect_bind_v5(self.handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds), nil, nil)
            loop.execute { [self] in connectEnded(rc) }
            ended.signal()
        }
    }

    /// The connect thread's result, on the loop thread: watch the socket, or wait and try again.
    private func connectEnded(_ rc: Int32) {
        connectingSince.withLock { $0 = nil }
        guard let handle else { return }
        if isStopping {
            if rc == MOSQ_ERR_SUCCESS.rawValue { _ = mosquitto_disconnect_v5(handle, 0, nil) }
            link.phase = .idle
            return
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            let delay = link.backoff.take()
            logger.info(
                "MQTT broker not reachable; retrying",
                metadata: ["broker": "\(options.host):\(options.port)", "error": "\(MQTTError(operation: "connect", rawCode: rc))", "retry_in": "\(delay)"])
            retry(after: delay)
            return
        }
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else {
            retry(after: link.backoff.take())
            return
        }
        link.keepalive = Keepalive()
        link.announced = false
        let watch = loop.watch(socket, for: .readable) { [self] ready in socketReady(ready) }
        link.phase = .attached(watch, wantsWrite: false)
        // The CONNECT is queued: write it.
        finishTurn(MOSQ_ERR_SUCCESS.rawValue)
    }

    /// Arms the timer for the next attempt.
    private func retry(after delay: Duration) {
        link.phase = .waiting
        let (seconds, attoseconds) = delay.components
        let at = nc_mqtt_monotonic_ns() + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        _ = nc_mqtt_timerfd_arm(keepaliveTimer, at)
        link.timerArmed = at
    }

    // MARK: Serving the connection

    /// The socket is ready (loop thread).
    private func socketReady(_ ready: NodeExecutor.Readiness) {
        guard case .attached = link.phase, let handle else { return }
        networkTurns.add(1, ordering: .relaxed)
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if !ready.isDisjoint(with: [.readable, .hangup]) {
            rc = mosquitto_loop_read(handle, 1)
            if rc == MOSQ_ERR_SUCCESS.rawValue { link.keepalive.heard() }
        }
        finishTurn(rc)
        // Outside the read: libmosquitto holds a lock of its own through on_message (MQTTCallbacks.swift).
        handOverArrived()
    }

    /// The timer fired (loop thread): the keepalive is due, or the backoff is over.
    private func timerFired() {
        nc_mqtt_timerfd_drain(keepaliveTimer)
        link.timerArmed = 0
        switch link.phase {
        case .waiting:
            beginConnect()
        case .attached:
            guard let handle else { return }
            networkTurns.add(1, ordering: .relaxed)
            var rc = MOSQ_ERR_SUCCESS.rawValue
            if let due = link.keepalive.due(lastSent: link.lastSent, interval: keepaliveInterval),
               nc_mqtt_monotonic_ns() >= due - Self.keepaliveSlack {
                let writing = mosquitto_want_write(handle)
                rc = mosquitto_loop_misc(handle)
                let pinged = !writing && mosquitto_want_write(handle)
                if rc == MOSQ_ERR_SUCCESS.rawValue { link.keepalive.checked(at: nc_mqtt_monotonic_ns(), pinged: pinged) }
            }
            finishTurn(rc)
        case .idle, .connecting:
            break
        }
    }

    /// After a read, a keepalive check or a publish: restores a new connection's state and hands
    /// the queue to libmosquitto; the turn's end writes it. Or gives the connection up.
    func finishTurn(_ result: Int32) {
        guard case .attached = link.phase else { return }
        guard result == MOSQ_ERR_SUCCESS.rawValue else { return lost(result) }
        if restorePending.load(ordering: .acquiring), restoreIfConnected() {
            link.backoff.reset()
            link.announced = true
        }
        if queueDepth.load(ordering: .acquiring) > 0 { drainQueue() }
        link.flushWanted = true
    }

    /// At the end of the loop's turn: writes what the turn queued and watches for what is left.
    func endTurn() {
        guard link.flushWanted else { return }
        link.flushWanted = false
        guard case .attached = link.phase else { return }
        let rc = writePending()
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return lost(rc) }
        // A QoS 0 publish is done once written (its on_publish frees its place in flight): what
        // waits behind it goes in a turn of its own now, not at the next packet in or keepalive.
        if queueDepth.load(ordering: .acquiring) > 0, state.withLock({ $0.connected && $0.inFlight < options.inFlightLimit }) {
            loop.execute { [self] in finishTurn(MOSQ_ERR_SUCCESS.rawValue) }
        }
        watchForWrites()
        if let due = link.keepalive.due(lastSent: link.lastSent, interval: keepaliveInterval) { armKeepalive(at: due) }
    }

    /// Writes what libmosquitto holds for the broker, as far as the non-blocking socket takes it;
    /// more than one packet in one segment.
    func writePending() -> Int32 {
        let packets = link.packets
        link.packets = 0
        guard let handle, mosquitto_want_write(handle) else { return MOSQ_ERR_SUCCESS.rawValue }
        let socket = packets > 1 ? mosquitto_socket(handle) : -1
        if socket >= 0 { _ = nc_mqtt_cork(socket, 1) }
        let rc = mosquitto_loop_write(handle, 1)
        // Uncorked even after a failed write: the socket stays libmosquitto's until it closes it.
        if socket >= 0 { _ = nc_mqtt_cork(socket, 0) }
        noteSent()
        return rc
    }

    /// Asks the loop for writability while libmosquitto holds something the socket did not take.
    private func watchForWrites() {
        guard case .attached(let watch, let wanted) = link.phase, let handle else { return }
        let wants = mosquitto_want_write(handle)
        guard wants != wanted else { return }
        loop.change(watch, to: wants ? [.readable, .writable] : .readable)
        link.phase = .attached(watch, wantsWrite: wants)
    }

    /// The connection failed (loop thread): libmosquitto has closed the socket; wait, then connect again.
    func lost(_ rc: Int32) {
        guard case .attached(let watch, _) = link.phase else { return }
        loop.unwatch(watch)
        let (wasConnectedNow, ready) = state.withLock { state in
            let wasConnected = state.connected
            state.connected = false
            return (wasConnected, readyWaiters(in: &state))
        }
        resume(ready)
        let wasConnected = wasConnectedNow || link.announced
        link.announced = false
        if isStopping {
            link.phase = .idle
            return
        }
        let delay = link.backoff.take()
        if wasConnected {
            eventContinuation.yield(.disconnected(reason: MQTTError(operation: "connection", rawCode: rc).description))
        }
        logger.warning(
            "MQTT connection lost; reconnecting",
            metadata: ["error": "\(MQTTError(operation: "loop", rawCode: rc))", "retry_in": "\(delay)"])
        retry(after: delay)
    }

    /// After a packet went out: the keepalive counts from now.
    func noteSent() {
        let now = nc_mqtt_monotonic_ns()
        link.lastSent = now
        armKeepalive(at: now + keepaliveInterval + Self.keepaliveGrace)
    }

    /// Arms the keepalive timer: for an earlier deadline than the one armed (by over 10 ms), and for
    /// a later one past the slack, so packets in a burst do not re-arm it each.
    private func armKeepalive(at deadline: Int64) {
        guard keepaliveInterval > 0, case .attached = link.phase else { return }
        let armed = link.timerArmed
        guard armed == 0 || armed - deadline > 10_000_000 || deadline - armed > Self.keepaliveSlack else { return }
        _ = nc_mqtt_timerfd_arm(keepaliveTimer, deadline)
        link.timerArmed = deadline
    }

    /// Starts the timer's watch and the first attempt (once, from `start`).
    func startLoop() {
        link.timerWatch = loop.watch(keepaliveTimer, for: .readable) { [self] _ in timerFired() }
        link.turnEnd = loop.atEndOfTurn { [weak self] in self?.endTurn() }
        beginConnect()
    }

    /// The stop's last step on the loop thread: DISCONNECT on an open connection (so the broker
    /// drops the last will), and no more watching.
    func stopLoop() {
        if case .attached(let watch, _) = link.phase, let handle {
            loop.unwatch(watch)
            _ = mosquitto_disconnect_v5(handle, 0, nil)
            _ = mosquitto_loop_write(handle, 1)
            link.phase = .idle
        }
        if case .waiting = link.phase { link.phase = .idle }
        if let turnEnd = link.turnEnd {
            loop.remove(turnEnd)
            link.turnEnd = nil
        }
        if let watch = link.timerWatch {
            loop.unwatch(watch)
            link.timerWatch = nil
            _ = nc_mqtt_timerfd_arm(keepaliveTimer, 0)
        }
    }

    // MARK: Restoring and draining

    /// After a CONNACK: subscriptions, `online`, every retained message, then the queue. True when it ran.
    private func restoreIfConnected() -> Bool {
        let restored = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard state.needsRestore else { return nil }
            state.needsRestore = false
            restorePending.store(false, ordering: .releasing)
            state.connected = true
            state.inFlight = 0
            state.pendingSubscriptions = [:]
            state.acknowledged = []
            subscribeNow(state.subscriptions, in: &state)
            // Retained messages that waited are superseded by the table of latest values.
            state.queue.removeAll { $0.retain }
            var ordered: [MQTTMessage] = []
            if let availability = options.availability {
                ordered.append(MQTTMessage(topic: availability.topic, text: availability.online, retain: true))
                if state.retained[availability.topic] == nil { state.retainedOrder.append(availability.topic) }
                state.retained[availability.topic] = ordered[0]
            }
            ordered += state.retainedOrder.compactMap { state.retained[$0] }.filter { $0.topic != options.availability?.topic }
            state.queue = ordered + state.queue
            queueDepth.store(state.queue.count, ordering: .releasing)
            return readyWaiters(in: &state)
        }
        if let restored {
            resume(restored)
            logger.info("MQTT connected", metadata: ["broker": "\(options.host):\(options.port)"])
            drainQueue()
            eventContinuation.yield(.connected)
        }
        return restored != nil
    }

    /// Hands queued messages to libmosquitto while the in-flight limit allows (loop thread); the
    /// caller writes them.
    func drainQueue() {
        resume(state.withLock { state in
            while state.connected, state.inFlight < options.inFlightLimit, let next = state.queue.first {
                guard send(next) else { break }
                state.queue.removeFirst()
                state.inFlight += 1
            }
            queueDepth.store(state.queue.count, ordering: .releasing)
            return readyWaiters(in: &state)
        })
    }
}

/// When the loop next calls `mosquitto_loop_misc`, which sends PINGREQ once a keepalive has passed
/// since the last packet out, or gives up on a connection whose PINGREQ went unanswered.
struct Keepalive {
    /// When the unanswered PINGREQ went out, if one did.
    private(set) var pingSentAt: Int64?
    /// After a check that sent nothing (libmosquitto saw a packet this side missed), the next
    /// one waits a second, libmosquitto's granularity, rather than spinning.
    private var notBefore: Int64 = 0

    /// The deadline in CLOCK_MONOTONIC nanoseconds, nil without a keepalive.
    func due(lastSent: Int64, interval: Int64) -> Int64? {
        guard interval > 0 else { return nil }
        var due = lastSent + interval + MQTTClient.keepaliveGrace
        if let pingSentAt { due = min(due, pingSentAt + interval + MQTTClient.keepaliveGrace) }
        return max(due, notBefore)
    }

    /// Something came in: the connection is alive.
    mutating func heard() { pingSentAt = nil }

    mutating func checked(at now: Int64, pinged: Bool) {
        if pinged {
            if pingSentAt == nil { pingSentAt = now }
            notBefore = 0
        } else {
            notBefore = now + 1_000_000_000
        }
    }
}
