import CCurl
import NoiseClockSystem
import Synchronization

/// The limits of one fetch, all explicit (SPEC §15, §17): nothing a server does can make a fetch
/// take more memory or time than these.
public struct HTTPLimits: Sendable, Hashable {
    /// The most body bytes kept; a longer answer fails `tooLarge` (2 MB for JSON, 20 MB for a feed).
    public var maxBodyBytes: Int
    /// At most this many redirects (SPEC §15: 10). A redirect from HTTPS to HTTP is always refused.
    public var maxRedirects: Int
    public var connectTimeout: Duration
    /// The whole fetch, redirects included.
    public var timeout: Duration
    /// The CA certificates HTTPS is checked against; nil for the system's store.
    public var caFile: String?

    public init(
        maxBodyBytes: Int = 2 << 20, maxRedirects: Int = 10, connectTimeout: Duration = .seconds(10),
        timeout: Duration = .seconds(30), caFile: String? = nil
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.caFile = caFile
    }
}

public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var contentType: String?
    /// The address answered from, after redirects.
    public var url: String
    public var body: [UInt8]
    /// True when the fetch stopped at the headers because `keep` said no (see `fetch`).
    public var stoppedAtHeaders: Bool
}

/// Why a fetch failed, as the user reads it.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case connect, timeout, tls, redirects, tooLarge = "too_large", status, cancelled, invalid
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// The node's one HTTP client for its small fetches (playlists, the station directory, weather and
/// calendar feeds): Debian's libcurl, so TLS is the system's, with its CA store and its security
/// updates. Each fetch runs on a thread of its own that ends with it, so an idle node has no HTTP
/// thread and no timer; the caller's task waits without holding a thread, and cancelling it ends
/// the transfer within about a second (curl asks its progress callback that often).
public struct HTTPClient: Sendable {
    public var userAgent: String

    private static let initialized: Void = { _ = nc_curl_global_init() }()

    public init(userAgent: String = "NoiseClock") {
        Self.initialized
        self.userAgent = userAgent
    }

    /// GETs `url` within `limits`. `keep`, asked once the headers are in with the content type, may
    /// stop the fetch there (a stream where a playlist might have been: nothing of it is read).
    /// An answer other than 2xx fails `status`.
    public func fetch(
        _ url: String, limits: HTTPLimits = HTTPLimits(), keep: @escaping @Sendable (_ contentType: String?) -> Bool = { _ in true }
    ) async throws(HTTPError) -> HTTPResponse {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw HTTPError(.invalid, "only http and https addresses can be fetched: \(url)")
        }
        let transfer = Transfer(url: url, limits: limits, userAgent: userAgent, keep: keep)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                Threads.start(name: "http") { continuation.resume(returning: transfer.run()) }
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }
}

/// One transfer's state, shared between its thread and libcurl's callbacks (which run on it).
private final class Transfer: @unchecked Sendable {
    // @unchecked Sendable: `body`, `tooLarge` and `stoppedAtHeaders` are touched only by the
    // transfer's thread (curl's callbacks run on it); `cancelled` is atomic.
    let url: String
    let limits: HTTPLimits
    let userAgent: String
    let keep: @Sendable (String?) -> Bool
    let cancelled = Atomic<Bool>(false)
    var body: [UInt8] = []
    var tooLarge = false
    var stoppedAtHeaders = false
    var decided = false
    var handle: UnsafeMutableRawPointer?

    init(url: String, limits: HTTPLimits, userAgent: String, keep: @escaping @Sendable (String?) -> Bool) {
        self.url = url
        self.limits = limits
        self.userAgent = userAgent
        self.keep = keep
    }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    func run() -> Result<HTTPResponse, HTTPError> {
        guard let curl = curl_easy_init() else { return .failure(HTTPError(.connect, "libcurl could not start a transfer")) }
        defer { curl_easy_cleanup(curl) }
        handle = curl
        let me = Unmanaged.passUnretained(self).toOpaque()
        let secure = url.lowercased().hasPrefix("https://")
        _ = nc_curl_set_string(curl, CURLOPT_URL, url)
        _ = nc_curl_set_string(curl, CURLOPT_USERAGENT, userAgent)
        _ = nc_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        // Once on HTTPS, a redirect may not leave it (SPEC §15).
        _ = nc_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, secure ? "https" : "http,https")
        _ = nc_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        _ = nc_curl_set_long(curl, CURLOPT_MAXREDIRS, limits.maxRedirects)
        _ = nc_curl_set_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
        _ = nc_curl_set_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = limits.caFile { _ = nc_curl_set_string(curl, CURLOPT_CAINFO, caFile) }
        _ = nc_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout))
        _ = nc_curl_set_long(curl, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.timeout))
        _ = nc_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = nc_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "")
        _ = nc_curl_set_write(curl, transferWrite)
        _ = nc_curl_set_pointer(curl, CURLOPT_WRITEDATA, me)
        _ = nc_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
        _ = nc_curl_set_progress(curl, transferProgress)
        _ = nc_curl_set_pointer(curl, CURLOPT_XFERINFODATA, me)

        // curl's own words for a failure ("Too large response headers: 307781 > 307200") say
        // more than its code's ("Failure when receiving data from the peer").
        var detail = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let code = detail.withUnsafeMutableBufferPointer { buffer in
            _ = nc_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            defer { _ = nc_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, nil) }
            return curl_easy_perform(curl)
        }
        let status = nc_curl_response_code(curl)
        let contentType = nc_curl_content_type(curl).map { String(cString: $0) }
        let finalURL = nc_curl_effective_url(curl).map { String(cString: $0) } ?? url
        let response = HTTPResponse(status: status, contentType: contentType, url: finalURL, body: body, stoppedAtHeaders: stoppedAtHeaders)
        if stoppedAtHeaders { return .success(response) }
        if tooLarge { return .failure(HTTPError(.tooLarge, "the answer of \(url) is larger than \(limits.maxBodyBytes) bytes")) }
        if cancelled.load(ordering: .acquiring) { return .failure(HTTPError(.cancelled, "the fetch of \(url) was cancelled")) }
        guard code == CURLE_OK else {
            let said = String(decoding: detail.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(Self.error(code, url: url, redirects: limits.maxRedirects, detail: said.isEmpty ? nil : said))
        }
        guard (200..<300).contains(status) else { return .failure(HTTPError(.status, "\(url) answered HTTP \(status)")) }
        return .success(response)
    }

    /// Takes a piece of the body; 0 (curl then stops) past the limit, or when `keep` says no.
    func write(_ data: UnsafeRawBufferPointer) -> Int {
        if !decided {
            decided = true
            let type = handle.flatMap { nc_curl_content_type($0) }.map { String(cString: $0) }
            if !keep(type) {
                stoppedAtHeaders = true
                return 0
            }
        }
        guard body.count + data.count <= limits.maxBodyBytes else {
            tooLarge = true
            return 0
        }
        body.append(contentsOf: data)
        return data.count
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    private static func error(_ code: CURLcode, url: String, redirects: Int, detail: String?) -> HTTPError {
        let reason = detail ?? String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return HTTPError(.timeout, "\(url): no answer in time (\(reason))")
        case CURLE_TOO_MANY_REDIRECTS: return HTTPError(.redirects, "\(url): more than \(redirects) redirects")
        case CURLE_UNSUPPORTED_PROTOCOL: return HTTPError(.redirects, "\(url): a redirect to a refused address (HTTPS may not lead to HTTP)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return HTTPError(.tls, "\(url): the certificate could not be verified (\(reason))")
        default: return HTTPError(.connect, "\(url): \(reason)")
        }
    }
}

private func transferWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// Asked by curl about every second and on every piece: non-zero ends the transfer (a cancel).
private func transferProgress(_ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let context else { return 1 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().cancelled.load(ordering: .acquiring) ? 1 : 0
}
