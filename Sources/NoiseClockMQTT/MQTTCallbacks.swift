import CMosquitto
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import NoiseClockCore

/// What libmosquitto reports, on the loop thread inside `mosquitto_loop_read` (and the connect
/// thread's `mosquitto_connect`, before the loop has the connection): each callback records its
/// news and returns. A message read is handed on once the read has returned (`handOverArrived`).
extension MQTTClient {

    func connected(rc: Int32) {
        if rc == 0 {
            state.withLock { $0.needsRestore = true }
            restorePending.store(true, ordering: .releasing)
        } else {
            let reason = String(cString: options.protocolVersion == .v5 ? mosquitto_reason_string(rc) : mosquitto_connack_string(rc))
            logger.error("MQTT broker refused the connection", metadata: ["reason": "\(reason)"])
        }
    }

    func disconnected(rc: Int32) {
        resume(state.withLock { state in
            state.connected = false
            return readyWaiters(in: &state)
        })
    }

    func published(mid: Int32) {
        resume(state.withLock { state in
            state.inFlight = max(0, state.inFlight - 1)
            return readyWaiters(in: &state)
        })
    }

    func subscribed(mid: Int32) {
        let done = state.withLock { state -> Bool in
            guard let filter = state.pendingSubscriptions.removeValue(forKey: mid) else { return false }
            state.acknowledged.insert(filter)
            return state.pendingSubscriptions.isEmpty
        }
        if done { eventContinuation.yield(.subscribed) }
    }

    func received(_ message: MQTTMessage) {
        // libmosquitto has queued its acknowledgement (PUBACK or PUBREC).
        if message.qos > 0 { link.packets += 1 }
        // Only queued here: libmosquitto 2.0 calls on_message holding its `callback_mutex`, which
        // a QoS 0 publish written from inside (`publishNow`, whose on_publish takes it again)
        // would wait for on this very thread. `handOverArrived` passes it on after the read.
        link.arrived.append(message)
    }

    /// Hands what the last `mosquitto_loop_read` brought to the consumer, in order, on the loop
    /// thread and outside libmosquitto's callbacks: the consumer may publish, write at once, or
    /// run a command to its end. Before a consumer comes, messages wait in the inbox, within
    /// `inboxByteLimit`.
    func handOverArrived() {
        guard !link.arrived.isEmpty else { return }
        var arrived: [MQTTMessage] = []
        swap(&arrived, &link.arrived)
        for message in arrived { handOver(message) }
        // The buffer is used again by the next read, unless the consumer's work made it read meanwhile.
        if link.arrived.isEmpty {
            arrived.removeAll(keepingCapacity: arrived.count <= 64)
            link.arrived = arrived
        }
    }

    private func handOver(_ message: MQTTMessage) {
        if let handler = link.handler {
            handler(message)
        } else if link.streaming {
            if case .dropped = messageContinuation.yield(message) {
                logger.warning("MQTT incoming buffer full; message dropped", metadata: ["topic": "\(message.topic)"])
            }
        } else if link.inboxBytes + message.heldBytes <= Self.inboxByteLimit {
            link.inbox.append(message)
            link.inboxBytes += message.heldBytes
        } else {
            logger.warning("MQTT incoming buffer full; message dropped", metadata: ["topic": "\(message.topic)"])
        }
    }
}

// C callbacks: nonisolated free functions (never main-actor closures, see PLATFORM.md), tiny.

private func client(_ userdata: UnsafeMutableRawPointer?) -> MQTTClient? {
    guard let userdata else { return nil }
    return Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue()
}

let onConnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, OpaquePointer?) -> Void = {
    _, userdata, rc, _, _ in
    client(userdata)?.connected(rc: rc)
}

let onDisconnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Void = {
    _, userdata, rc, _ in
    client(userdata)?.disconnected(rc: rc)
}

let onPublish: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, OpaquePointer?) -> Void = {
    _, userdata, mid, _, _ in
    client(userdata)?.published(mid: mid)
}

let onSubscribe: @convention(c) (
    OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?, OpaquePointer?
) -> Void = { _, userdata, mid, _, _, _ in
    client(userdata)?.subscribed(mid: mid)
}

let onMessage: @convention(c) (
    OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?, OpaquePointer?
) -> Void = { _, userdata, message, properties in
    guard let message, let target = client(userdata) else { return }
    let m = message.pointee
    let topic = m.topic.map { String(cString: $0) } ?? ""
    var payload: [UInt8] = []
    if let bytes = m.payload, m.payloadlen > 0 {
        payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(m.payloadlen)))
    }
    var responseTopic: String?
    var correlation: [UInt8]?
    if let properties {
        var text: UnsafeMutablePointer<CChar>?
        if mosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil, let text {
            responseTopic = String(cString: text)
            free(text)
        }
        var data: UnsafeMutableRawPointer?
        var length: UInt16 = 0
        if mosquitto_property_read_binary(properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil,
           let data {
            correlation = Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
            free(data)
        }
    }
    target.received(
        MQTTMessage(
            topic: topic, payload: payload, qos: Int(m.qos), retain: m.retain, responseTopic: responseTopic,
            correlationData: correlation))
}
