import Foundation
import Synchronization

/// A proxy on a 127.0.0.1 port of its own between the node and an upstream server (an Icecast), whose
/// misbehaviour the test changes while the node listens (SPEC §8: streams are hostile input): it
/// passes the upstream's bytes, stalls them (connections kept open, nothing sent; new ones get
/// no answer), trickles them slower than they play, cuts every open connection, or answers new
/// connections with a web page, garbage that claims to be audio, or a header that never ends.
/// One thread per connection; closed with the test.
public final class FaultProxy: Sendable {
    public enum Mode: Sendable, Equatable {
        case pass
        case stall
        /// The upstream's bytes, at most this many a second.
        case trickle(bytesPerSecond: Int)
        /// `200 text/html` with a web page.
        case html
        /// `200 audio/mpeg`, then random bytes, for ever.
        case garbage
        /// `200`, then header lines, for ever.
        case endlessHeader
    }

    public let port: Int
    private let core: ProxyCore

    public init(upstreamPort: Int, mode: Mode = .pass) throws {
        let (listener, port) = try listenOnLoopback()
        self.port = port
        let core = ProxyCore(listener: listener, upstreamPort: upstreamPort, mode: mode)
        self.core = core
        Thread.detachNewThread { core.acceptLoop() }
    }

    deinit { core.close() }

    /// The address of `mount` through the proxy.
    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)/\(mount)" }

    /// From now on, for open connections and new ones.
    public func set(_ mode: Mode) { core.mode.withLock { $0 = mode } }

    /// Closes every open connection (new ones are served as the mode says).
    public func cut() { core.connections.withLock { for fd in $0.open { shutdown(fd, Int32(SHUT_RDWR)) } } }

    /// Connections accepted so far.
    public var connectionCount: Int { core.connections.withLock { $0.accepted } }
}

private final class ProxyCore: Sendable {
    let listener: Int32
    let upstreamPort: Int
    let mode: Mutex<FaultProxy.Mode>
    let closed = Atomic<Bool>(false)
    /// The connections still open (only those may be shut down: a number closed is soon another
    /// test's descriptor), and how many were accepted.
    let connections = Mutex<(open: Set<Int32>, accepted: Int)>(([], 0))

    init(listener: Int32, upstreamPort: Int, mode: FaultProxy.Mode) {
        self.listener = listener
        self.upstreamPort = upstreamPort
        self.mode = Mutex(mode)
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        connections.withLock { for fd in $0.open { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    func acceptLoop() {
        defer { Glibc.close(listener) }
        while !isClosed {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if isClosed { return }
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
        let request = readRequestHead(fd)
        switch mode.withLock({ $0 }) {
        case .html:
            _ = sendAll(fd, Array("HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<!doctype html><html><body><h1>Gone fishing</h1></body></html>".utf8))
        case .garbage:
            guard sendAll(fd, Array("HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\n\r\n".utf8)) else { return }
            var generator = SystemRandomNumberGenerator()
            while !isClosed, sendAll(fd, (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }) { usleep(50_000) }
        case .endlessHeader:
            guard sendAll(fd, Array("HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\n".utf8)) else { return }
            var line = 0
            while !isClosed, sendAll(fd, Array("X-Filler-\(line): \(String(repeating: "a", count: 1000))\r\n".utf8)) {
                line += 1
                usleep(10_000)
            }
        case .pass, .stall, .trickle:
            relay(fd, request: request)
        }
    }

    /// The upstream's answer to `request`, passed on as the mode says at each moment.
    private func relay(_ fd: Int32, request: [UInt8]) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(upstreamPort).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, sendAll(upstream, request) else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var client = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !isClosed {
            // The client gone (or cut): the connection ends.
            if poll(&client, 1, 0) > 0, client.revents & Int16(POLLHUP | POLLERR | POLLIN) != 0 {
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 { return }
            }
            let limit: Int
            switch mode.withLock({ $0 }) {
            case .stall:
                usleep(50_000)
                continue
            case .trickle(let rate):
                limit = max(1, rate / 10)
            default:
                limit = chunk.count
            }
            var readable = pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)
            guard poll(&readable, 1, 100) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, limit, 0) }
            guard n > 0, sendAll(fd, Array(chunk[..<n])) else { return }
            if limit < chunk.count { usleep(100_000) }
        }
    }
}
