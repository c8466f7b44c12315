import Foundation
import Synchronization

/// A hostile HTTP server on a free 127.0.0.1 port (SPEC §8: streams and feeds are hostile input):
/// each connection gets the one misbehaviour the server was made with, or, as a proxy, the
/// upstream's bytes until it cuts or stalls them. One thread per connection; closed with the test.
public final class FaultServer: Sendable {
    public enum Fault: Sendable {
        /// Accepts, reads the request, never answers.
        case silent
        /// `200 text/html` with a web page.
        case html
        /// `200 audio/mpeg` followed by random bytes, for ever (slowly).
        case garbage
        /// `302` to itself, for ever.
        case redirectLoop
        /// A playlist (`audio/x-scpls`) whose only entry is its own address.
        case selfPlaylist
        /// `200` with `body` and `contentType`, then closes.
        case body(String, contentType: String)
        /// The upstream's answer passed through; after `afterBytes` bytes of it, the connection
        /// is closed (`stall: false`) or kept open with nothing more sent (`stall: true`).
        case proxy(upstreamPort: Int, afterBytes: Int?, stall: Bool)
    }

    public let port: Int
    private let core: Core

    public init(_ fault: Fault) throws {
        port = freeLoopbackPort()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            Glibc.close(listener)
            throw FaultServerError(message: "cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        // The threads hold the core, not the server: the server's end (the test's) closes them.
        let core = Core(port: port, listener: listener, fault: fault)
        self.core = core
        Thread.detachNewThread { core.acceptLoop() }
    }

    deinit { core.close() }

    public var url: String { "http://127.0.0.1:\(port)/stream" }

    /// Connections accepted so far.
    public var connectionCount: Int { core.connections.withLock { $0.accepted } }

    public func close() { core.close() }

    struct FaultServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// The listening socket and what its threads share.
private final class Core: Sendable {
    let port: Int
    let listener: Int32
    let fault: FaultServer.Fault
    let closed = Atomic<Bool>(false)
    /// The connections still open (only those may be shut down: a number closed is soon another
    /// test's descriptor), and how many were accepted.
    let connections = Mutex<(open: Set<Int32>, accepted: Int)>(([], 0))

    init(port: Int, listener: Int32, fault: FaultServer.Fault) {
        self.port = port
        self.listener = listener
        self.fault = fault
    }

    var url: String { "http://127.0.0.1:\(port)/stream" }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Wakes the accept thread, which closes the listener itself: its number is not reused under it.
        shutdown(listener, Int32(SHUT_RDWR))
        connections.withLock { for fd in $0.open { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    func acceptLoop() {
        defer { Glibc.close(listener) }
        while !closed.load(ordering: .acquiring) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if closed.load(ordering: .acquiring) { return }
                continue
            }
            connections.withLock {
                $0.open.insert(fd)
                $0.accepted += 1
            }
            Thread.detachNewThread { self.serve(fd) }
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            connections.withLock {
                $0.open.remove(fd)
                Glibc.close(fd)
            }
        }
        let request = readRequest(fd)
        switch fault {
        case .silent:
            var byte: UInt8 = 0
            while !closed.load(ordering: .acquiring), recv(fd, &byte, 1, 0) > 0 {}
        case .html:
            send(fd, "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<!doctype html><html><body><h1>Welcome</h1><p>This is not a radio station.</p></body></html>")
        case .garbage:
            send(fd, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\n\r\n")
            var generator = SystemRandomNumberGenerator()
            while !closed.load(ordering: .acquiring) {
                let chunk = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
                guard sendBytes(fd, chunk) else { return }
                usleep(50_000)
            }
        case .redirectLoop:
            send(fd, "HTTP/1.0 302 Found\r\nLocation: http://127.0.0.1:\(port)/again\(UInt32.random(in: 0...UInt32.max))\r\n\r\n")
        case .selfPlaylist:
            send(fd, "HTTP/1.0 200 OK\r\nContent-Type: audio/x-scpls\r\n\r\n[playlist]\nFile1=\(url).pls\nNumberOfEntries=1\n")
        case .body(let body, let contentType):
            send(fd, "HTTP/1.0 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        case .proxy(let upstreamPort, let afterBytes, let stall):
            proxy(fd, request: request, upstreamPort: upstreamPort, afterBytes: afterBytes, stall: stall)
        }
    }

    private func proxy(_ fd: Int32, request: [UInt8], upstreamPort: Int, afterBytes: Int?, stall: Bool) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(upstream) }
        var address = loopback(upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, sendBytes(upstream, request) else { return }
        var passed = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !closed.load(ordering: .acquiring) {
            let limit = afterBytes.map { min(chunk.count, $0 - passed) } ?? chunk.count
            if limit <= 0 { break }
            let n = chunk.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, limit, 0) }
            guard n > 0, sendBytes(fd, Array(chunk[..<n])) else { return }
            passed += n
        }
        if stall {
            var byte: UInt8 = 0
            while !closed.load(ordering: .acquiring), recv(fd, &byte, 1, 0) > 0 {}
        }
    }

    /// The request's bytes, up to the blank line that ends its head.
    private func readRequest(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 16_384, recv(fd, &byte, 1, 0) == 1 {
            bytes.append(byte)
            if bytes.count >= 4, bytes.suffix(4) == [13, 10, 13, 10] { break }
        }
        return bytes
    }

    private func send(_ fd: Int32, _ text: String) { _ = sendBytes(fd, Array(text.utf8)) }

    private func sendBytes(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }
}

private func loopback(_ port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
}
