import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import NoiseClockSystem
import Synchronization

/// The network thread. It drives libmosquitto through its external-loop calls (`mosquitto_socket`,
/// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`) and its own `poll`, rather
/// than `mosquitto_loop`, so that an idle connection wakes it only when the broker sends something
/// or a keepalive ping is due:
///
/// - `mosquitto_loop` also waits on a socketpair that libmosquitto writes a byte to whenever any
///   thread queues a packet. A publishing thread writes its own packet (`writeNow`), so that byte
///   only woke this thread to find nothing to do, and to contend for libmosquitto's locks with the
///   writer. It is not polled here. (libmosquitto makes the pair non-blocking and anew at each
///   connect: unread, it fills and libmosquitto's writes to it fail quietly.) What the other
///   threads do need this thread for (a packet the socket did not take, subscriptions, the queue,
///   stopping) they ask for through `wakeFD`.
/// - `mosquitto_loop` checks the keepalive on every turn, and libmosquitto pings whenever nothing
///   has come *in* for a keepalive, however much goes out. Here the keepalive is a timer, due a
///   keepalive after the last packet out (from whichever thread sent it: re-arming a timerfd does
///   not wake the thread polling it); only then `mosquitto_loop_misc` sends PINGREQ. So a node that
///   publishes its clock every minute pings once a minute with a 30 s keepalive, not twice. A
///   PINGREQ left unanswered for a keepalive closes the connection, as libmosquitto's loop does.
extension MQTTClient {
    /// How long past the keepalive the ping may wait: packets sent on a regular beat (the clock's
    /// minute) then reliably land before the ping they make unnecessary. libmosquitto's own
    /// keepalive counts in whole seconds; brokers allow 1.5 × the keepalive.
    static let keepaliveGrace: Int64 = 500_000_000
    /// How early the keepalive timer may fire and still count (less than the grace, so
    /// libmosquitto's whole-second check agrees a keepalive has passed): packets that go out
    /// together (the minute's states) move the deadline by less and need not re-arm it.
    static let keepaliveSlack: Int64 = 250_000_000

    /// The keepalive in CLOCK_MONOTONIC nanoseconds; 0 for none.
    var keepaliveInterval: Int64 { Int64(max(0, options.keepaliveSeconds)) * 1_000_000_000 }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func interruptPause() {
        wakeUp.signal()
        wakeNetworkThread()
    }

    /// After a packet went out, on any thread: the keepalive counts from now.
    func noteSent() {
        let now = nc_mqtt_monotonic_ns()
        lastSent.store(now, ordering: .releasing)
        armKeepalive(at: now + keepaliveInterval + Self.keepaliveGrace)
    }

    /// Arms the keepalive timer: for an earlier deadline than the one armed (by over 10 ms), and for
    /// a later one past the slack, so packets in a burst do not re-arm it each.
    func armKeepalive(at deadline: Int64) {
        guard keepaliveInterval > 0 else { return }
        keepaliveArmed.withLock { armed in
            guard armed == 0 || armed - deadline > 10_000_000 || deadline - armed > Self.keepaliveSlack else { return }
            _ = nc_mqtt_timerfd_arm(keepaliveTimer, deadline)
            armed = deadline
        }
    }

    /// Connects, serves the connection, and after a failure waits with a doubling delay and reconnects.
    func networkLoop() {
        guard let handle else { return }
        var backoff = ReconnectBackoff(minimum: options.minimumReconnectDelay, maximum: options.maximumReconnectDelay)
        var attached = false
        // Whether this connection got as far as `connected`: libmosquitto reports a loss through
        // on_disconnect (which clears `state.connected`) before the loop sees it.
        var announced = false
        var keepalive = Keepalive()
        while !isStopping {
            if !attached {
                // Not under `io`: it blocks while it connects, and nothing else writes until `connected`.
                let rc = mosquitto_connect_bind_v5(
                    handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds), nil, nil)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    attached = true
                    keepalive = Keepalive()
                } else {
                    let delay = backoff.take()
                    logger.info(
                        "MQTT broker not reachable; retrying",
                        metadata: ["broker": "\(options.host):\(options.port)", "error": "\(MQTTError(operation: "connect", rawCode: rc))", "retry_in": "\(delay)"])
                    pause(delay)
                    continue
                }
            }
            let rc = turn(handle, &keepalive)
            if restorePending.load(ordering: .acquiring), restoreIfConnected() {
                backoff.reset()
                announced = true
            }
            if queueDepth.load(ordering: .acquiring) > 0 { drainQueue() }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                attached = false
                let wasConnected = state.withLock { state in
                    defer { state.connected = false }
                    return state.connected
                } || announced
                announced = false
                if isStopping { break }
                let delay = backoff.take()
                if wasConnected {
                    eventContinuation.yield(.disconnected(reason: MQTTError(operation: "connection", rawCode: rc).description))
                }
                logger.warning(
                    "MQTT connection lost; reconnecting",
                    metadata: ["error": "\(MQTTError(operation: "loop", rawCode: rc))", "retry_in": "\(delay)"])
                pause(delay)
            }
        }
        logger.debug("MQTT network thread ended")
    }

    /// One turn: writes what is queued (the CONNECT, restored state, the queue), sleeps until the
    /// socket has something, another thread asks, or the keepalive timer fires, then reads, keeps
    /// the connection alive, and writes what that queued (acknowledgements, a PINGREQ).
    private func turn(_ handle: OpaquePointer, _ keepalive: inout Keepalive) -> Int32 {
        var rc = writePending(handle)
        if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
        let (socket, wantsWrite) = io.withLock { _ in (mosquitto_socket(handle), mosquitto_want_write(handle)) }
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        if let due = keepalive.due(lastSent: lastSent.load(ordering: .acquiring), interval: keepaliveInterval) {
            armKeepalive(at: due)
        }
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: keepaliveTimer, events: Int16(POLLIN), revents: 0),
        ]
        parked.store(true, ordering: .releasing)
        let ready = poll(&fds, nfds_t(fds.count), -1)
        heartbeat.withLock { $0 = .now }
        networkTurns.add(1, ordering: .relaxed)
        parked.store(false, ordering: .releasing)
        if ready < 0 { return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue }
        if fds[1].revents != 0 { nc_mqtt_eventfd_drain(wakeFD) }
        if fds[2].revents != 0 {
            nc_mqtt_timerfd_drain(keepaliveTimer)
            keepaliveArmed.withLock { $0 = 0 }
        }
        if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            rc = io.withLock { _ in mosquitto_loop_read(handle, 1) }
            if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
            keepalive.heard()
        }
        if let due = keepalive.due(lastSent: lastSent.load(ordering: .acquiring), interval: keepaliveInterval),
           nc_mqtt_monotonic_ns() >= due - Self.keepaliveSlack {
            let (misc, pinged) = io.withLock { _ in
                let writing = mosquitto_want_write(handle)
                let rc = mosquitto_loop_misc(handle)
                return (rc, !writing && mosquitto_want_write(handle))
            }
            rc = misc
            if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
            keepalive.checked(at: nc_mqtt_monotonic_ns(), pinged: pinged)
        }
        return writePending(handle)
    }

    private func writePending(_ handle: OpaquePointer) -> Int32 {
        let rc: Int32? = io.withLock { _ in
            guard mosquitto_want_write(handle) else { return nil }
            return mosquitto_loop_write(handle, 1)
        }
        guard let rc else { return MOSQ_ERR_SUCCESS.rawValue }
        noteSent()
        return rc
    }

    private func pause(_ delay: Duration) {
        let until = ContinuousClock.now + delay
        while !isStopping, ContinuousClock.now < until {
            // In slices of a second, so the heartbeat goes on during a long backoff.
            wakeUp.wait(timeout: min(ContinuousClock.now.duration(to: until), .seconds(1)))
            heartbeat.withLock { $0 = .now }
        }
    }

    /// After a CONNACK: subscriptions, `online`, every retained message, then the queue. True when it ran.
    private func restoreIfConnected() -> Bool {
        let restored = state.withLock { state -> Bool in
            guard state.needsRestore else { return false }
            state.needsRestore = false
            restorePending.store(false, ordering: .releasing)
            state.connected = true
            state.inFlight = 0
            state.pendingSubscriptions = []
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
            return true
        }
        if restored {
            logger.info("MQTT connected", metadata: ["broker": "\(options.host):\(options.port)"])
            drainQueue()
            eventContinuation.yield(.connected)
        }
        return restored
    }

    /// Hands queued messages to libmosquitto while the in-flight limit allows; the next turn writes them.
    private func drainQueue() {
        state.withLock { state in
            while state.connected, state.inFlight < options.inFlightLimit, let next = state.queue.first {
                guard send(next) else { break }
                state.queue.removeFirst()
                state.inFlight += 1
            }
            queueDepth.store(state.queue.count, ordering: .releasing)
        }
    }
}

/// When the network thread next calls `mosquitto_loop_misc`, which sends PINGREQ once a keepalive
/// has passed since the last packet out, or gives up on a connection whose PINGREQ went unanswered.
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
