import Foundation
import Synchronization

/// A scripted MQTT 5 "broker" on 127.0.0.1: it answers CONNECT with CONNACK, a QoS 1 PUBLISH with
/// PUBACK (unless told to hold them back until `releasePubacks`) and (unless told not to) PINGREQ
/// with PINGRESP, and records each packet with when it
/// came, so a test sees exactly what the client sends and when. Mosquitto cannot be told to stop
/// answering pings, nor show when a client's packets arrive.
final class ScriptedBroker: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `answersPings` are set once; the rest is under `state`.
    /// The descriptors still open, under `state`: each is closed with its number taken out under
    /// the lock, so `close` never shuts down a number that a socket of another test now holds
    /// (the process opens and closes sockets by the hundred; shutting down a reused number ended
    /// a face test's WebSocket connection from under it).
    struct Sockets {
        var packets: [Packet] = []
        var connections = 0
        var open: Set<Int32> = []
        var listening = true
        /// Set by `close`: from then on a failing `accept` ends the loop.
        var closing = false
        /// PUBACKs held back (`holdsPubacks`), with their connection.
        var heldPubacks: [(connection: Int32, packet: [UInt8])] = []
    }
    struct Packet: Sendable {
        /// The MQTT packet type: 1 CONNECT, 3 PUBLISH, 12 PINGREQ, 14 DISCONNECT, …
        var type: UInt8
        /// Which connection it came on, counting from 0.
        var connection: Int
        var at: ContinuousClock.Instant
    }

    let port: Int
    private let listener: Int32
    private let answersPings: Bool
    private let holdsPubacks: Bool
    private let state = Mutex(Sockets())

    init(answersPings: Bool = true, holdsPubacks: Bool = false) throws {
        self.answersPings = answersPings
        self.holdsPubacks = holdsPubacks
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptConnections() }.start()
    }

    /// Stops listening and ends every connection still open (each thread then closes its own).
    func close() {
        state.withLock { state in
            state.closing = true
            if state.listening { shutdown(listener, Int32(SHUT_RDWR)) }
            for connection in state.open { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    var packets: [Packet] { state.withLock { $0.packets } }

    /// Sends the PUBACKs held back so far, in order, on the connections still open.
    func releasePubacks() {
        state.withLock { state in
            for (connection, packet) in state.heldPubacks where state.open.contains(connection) { send(packet, on: connection) }
            state.heldPubacks = []
        }
    }

    func packets(_ type: UInt8) -> [Packet] { packets.filter { $0.type == type } }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                // A connection reset before it was taken, or a signal, is not the end; `close` is.
                let transient = errno == EINTR || errno == ECONNABORTED
                if transient, !state.withLock({ $0.closing }) { continue }
                break
            }
            let index = state.withLock { state in
                state.open.insert(connection)
                defer { state.connections += 1 }
                return state.connections
            }
            Thread { [self] in serve(connection, index) }.start()
        }
        state.withLock { state in
            state.listening = false
            Glibc.close(listener)
        }
    }

    private func serve(_ connection: Int32, _ index: Int) {
        defer {
            state.withLock { state in
                state.open.remove(connection)
                Glibc.close(connection)
            }
        }
        while let (header, body) = readPacket(connection) {
            let type = header >> 4
            state.withLock { $0.packets.append(Packet(type: type, connection: index, at: .now)) }
            switch type {
            case 1: send([0x20, 0x03, 0x00, 0x00, 0x00], on: connection)  // CONNACK: no session, success, no properties
            case 3 where (header >> 1) & 3 == 1 && body.count >= 2:  // PUBLISH at QoS 1: acknowledge its packet id
                let topicLength = Int(body[0]) << 8 | Int(body[1])
                guard body.count >= topicLength + 4 else { return }
                let puback: [UInt8] = [0x40, 0x02, body[topicLength + 2], body[topicLength + 3]]
                if holdsPubacks {
                    state.withLock { $0.heldPubacks.append((connection, puback)) }
                } else {
                    send(puback, on: connection)
                }
            case 12 where answersPings: send([0xD0, 0x00], on: connection)  // PINGRESP
            case 14: return  // DISCONNECT
            default: break
            }
        }
    }

    private func send(_ bytes: [UInt8], on connection: Int32) {
        _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }

    private func readPacket(_ connection: Int32) -> (UInt8, [UInt8])? {
        guard let header = read(connection, count: 1)?.first else { return nil }
        var length = 0, multiplier = 1
        while true {
            guard let byte = read(connection, count: 1)?.first else { return nil }
            length += Int(byte & 127) * multiplier
            multiplier *= 128
            if byte & 128 == 0 { break }
        }
        guard let body = read(connection, count: length) else { return nil }
        return (header, body)
    }

    private func read(_ connection: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress! + done, count - done) }
            if n <= 0 { return nil }
            done += n
        }
        return bytes
    }
}
