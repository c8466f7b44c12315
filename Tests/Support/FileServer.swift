import Foundation
import Synchronization

/// A plain HTTP/1.0 server on a 127.0.0.1 port of its own that serves the files of a folder (what a web
/// server does for HLS segments and playlists): each answer has the content type its file's
/// ending names and a length, and the connection is closed after it. A file not there is a 404.
/// One thread per connection; closed with the test.
public final class FileServer: Sendable {
    public let port: Int
    public let directory: String
    private let core: FileServerCore

    public init(directory: String) throws {
        let (listener, port) = try listenOnLoopback()
        self.port = port
        self.directory = directory
        let core = FileServerCore(listener: listener, directory: directory)
        self.core = core
        Thread.detachNewThread { core.acceptLoop() }
    }

    deinit { core.close() }

    /// The address of `path` (relative to the folder).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// The requests answered so far, by path.
    public var requests: [String] { core.requests.withLock { $0 } }

    /// The content type of a file by its ending.
    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "m3u": "audio/x-mpegurl"
        case "pls": "audio/x-scpls"
        case "ts": "video/mp2t"
        case "aac": "audio/aac"
        case "mp3": "audio/mpeg"
        case "html": "text/html"
        default: "application/octet-stream"
        }
    }
}

private final class FileServerCore: Sendable {
    let listener: Int32
    let directory: String
    let closed = Atomic<Bool>(false)
    let requests = Mutex<[String]>([])

    init(listener: Int32, directory: String) {
        self.listener = listener
        self.directory = directory
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    func acceptLoop() {
        defer { Glibc.close(listener) }
        while !closed.load(ordering: .acquiring) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if closed.load(ordering: .acquiring) { return }
                continue
            }
            Thread.detachNewThread { self.serve(fd) }
        }
    }

    private func serve(_ fd: Int32) {
        defer { Glibc.close(fd) }
        let head = String(decoding: readRequestHead(fd), as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "GET" else { return }
        let path = String(parts[1].split(separator: "?").first ?? "").removingPercentEncoding ?? ""
        requests.withLock { $0.append(path) }
        let file = directory + "/" + path.drop { $0 == "/" }
        guard !path.contains(".."), let body = FileManager.default.contents(atPath: file) else {
            _ = sendAll(fd, Array("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let header = "HTTP/1.0 200 OK\r\nContent-Type: \(FileServer.contentType(path))\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Array(header.utf8)) else { return }
        _ = sendAll(fd, [UInt8](body))
    }
}

/// A listening socket on a port of 127.0.0.1 that the kernel picks as it binds (no other process
/// can take it between a check and the bind), and the port.
func listenOnLoopback() throws -> (fd: Int32, port: Int) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
        let reason = String(cString: strerror(errno))
        Glibc.close(listener)
        throw ServerError(message: "cannot listen on 127.0.0.1: \(reason)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return (listener, Int(UInt16(bigEndian: address.sin_port)))
}

/// The request's bytes, up to the blank line that ends its head.
func readRequestHead(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while bytes.count < 16_384, recv(fd, &byte, 1, 0) == 1 {
        bytes.append(byte)
        if bytes.count >= 4, bytes.suffix(4) == [13, 10, 13, 10] { break }
    }
    return bytes
}

/// Sends all of `bytes`; false when the peer is gone.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { return false }
        sent += n
    }
    return true
}

struct ServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
