#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import NoiseClockCore
import NoiseClockHTTP
import NoiseClockStreams
import NoiseClockSystem

/// One station sounding, from its start to its stop: its playlist resolved (at every start:
/// stations move their servers), its streams tried in order, and a stream that drops or stalls
/// connected again with backoff (1 s doubling to 30 s) while what is buffered plays out (SPEC §15).
/// One `StreamBuffer` and one `StreamSource` for its whole life: the mixer keeps the same input
/// across reconnects, playing silence while the network is behind.
///
/// Network and decoding run on the receiver's thread; the session itself lives on the loop and
/// only reacts to the receiver's few events (connected, sounding, a title, ended), which arrive in
/// order through one `AsyncStream`. Nothing of it wakes the node while no stream plays.
@NodeActor
final class StreamSession {
    /// What to play: a station, or an address played as it is.
    struct Target: Sendable, Hashable {
        var station: String?
        var name: String
        var url: String
    }

    /// How long a session keeps trying, and how patient each try is.
    struct Policy: Sendable {
        /// Down for this long (no sound), the session fails; 0: at the first failure (an alarm,
        /// which then turns to its fallback).
        var giveUpAfter: Duration
        var stream: StreamOptions
        var resolver: StationResolver

        /// Listening (SPEC §15): five minutes of retrying before `failed`.
        static func listening(bufferSeconds: Int, caFile: String? = nil) -> Policy {
            Policy(
                giveUpAfter: .seconds(300), stream: options(bufferSeconds: bufferSeconds, openSeconds: 10, caFile: caFile),
                resolver: resolver(timeoutSeconds: 10, caFile: caFile))
        }

        /// An alarm (SPEC §15): the first failure gives way to the fallback; each wait at most
        /// `start_timeout_s`.
        static func alarm(startTimeoutSeconds: Int, bufferSeconds: Int, caFile: String? = nil) -> Policy {
            Policy(
                giveUpAfter: .zero, stream: options(bufferSeconds: bufferSeconds, openSeconds: startTimeoutSeconds, caFile: caFile),
                resolver: resolver(timeoutSeconds: startTimeoutSeconds, caFile: caFile))
        }

        /// The CA certificates HTTPS is checked against when the node is given none: the file named
        /// by `SSL_CERT_FILE` (OpenSSL's variable for a store other than the system's; the tests
        /// trust their own CA with it), else the system's store.
        static var environmentCAFile: String? {
            guard let value = getenv("SSL_CERT_FILE").map({ String(cString: $0) }), !value.isEmpty else { return nil }
            return value
        }

        private static func options(bufferSeconds: Int, openSeconds: Int, caFile: String?) -> StreamOptions {
            let caFile = caFile ?? environmentCAFile
            var options = StreamOptions(openTimeout: .seconds(openSeconds), stallTimeout: .seconds(bufferSeconds))
            if let caFile { options.caFile = caFile }
            return options
        }

        private static func resolver(timeoutSeconds: Int, caFile: String?) -> StationResolver {
            let caFile = caFile ?? environmentCAFile
            return StationResolver(limits: HTTPLimits(maxBodyBytes: 64 << 10, timeout: .seconds(timeoutSeconds), caFile: caFile))
        }
    }

    let target: Target
    let buffer: StreamBuffer
    /// What the mixer plays: the buffer, silence while it is empty; ends once the session stops
    /// and what was buffered has played.
    let source: StreamSource
    private let policy: Policy
    private let clock: NodeClock
    private let onChange: @NodeActor (StreamSession) -> Void

    private(set) var phase: RadioState.Phase = .connecting
    private(set) var info: StreamInfo?
    private(set) var title: String?
    /// Why the last try failed (cleared once the stream sounds again).
    private(set) var error: String?
    /// How many times the stream began to sound (1 after the first start; more after reconnects).
    private(set) var soundings = 0
    private var receiver: StreamProcess?
    private var task: Task<Void, Never>?
    private var stopped = false

    init(
        target: Target, bufferSeconds: Int, policy: Policy, clock: NodeClock,
        onChange: @escaping @NodeActor (StreamSession) -> Void
    ) {
        self.target = target
        buffer = StreamBuffer(seconds: Double(bufferSeconds))
        source = StreamSource(buffer: buffer)
        self.policy = policy
        self.clock = clock
        self.onChange = onChange
    }

    /// Starts connecting (once).
    func start() {
        guard task == nil, !stopped else { return }
        task = NodeActor.task { await self.run() }
    }

    /// Ends the session: the receiver stops within ~100 ms, a backoff wait ends at once; what is
    /// buffered may still play out (the mixer's fade), then the source ends. No change is reported
    /// after this.
    func stop() {
        guard !stopped else { return }
        stopped = true
        receiver?.stop()
        task?.cancel()
        buffer.finish()
    }

    // MARK: The life of the session

    /// A stream that played this long before it dropped counts as up again: the backoff and the
    /// time down start over. One that keeps dropping sooner (a server that plays a "full" jingle
    /// and closes) is down all along, and fails after `giveUpAfter` as a dead one does.
    static let steady: Duration = .seconds(30)

    private func run() async {
        var delay = Duration.seconds(1)
        var downSince = ContinuousClock.now
        while !stopped {
            let played = await attempt()
            guard !stopped else { break }
            if let played, played >= Self.steady {
                delay = .seconds(1)
                downSince = .now
            }
            if ContinuousClock.now - downSince >= policy.giveUpAfter || fatal {
                change(to: .failed)
                break
            }
            change(to: .retrying)
            do { try await clock.sleep(delay) } catch { break }
            delay = min(delay * 2, .seconds(30))
        }
        receiver = nil
        buffer.finish()
    }

    /// The helper cannot run: retrying will not mend it.
    private var fatal = false

    /// One try: the station's streams resolved, each tried in turn until one connects. How long a
    /// stream sounded before it ended; nil when none sounded.
    private func attempt() async -> Duration? {
        if phase != .retrying { change(to: .connecting) }
        let streams: [String]
        do throws(HTTPError) {
            streams = try await policy.resolver.streams(of: target.url)
        } catch {
            self.error = error.message
            return nil
        }
        for url in streams {
            guard !stopped else { return nil }
            let outcome = await receive(url)
            if let failure = outcome.error {
                self.error = failure.message
                if failure.kind == .helper {
                    fatal = true
                    return nil
                }
            }
            if let played = outcome.played { return played }
        }
        return nil
    }

    /// Plays `url` until its receiver ends: how long it sounded (nil: it never did), and its error
    /// (nil when stopped).
    private func receive(_ url: String) async -> (played: Duration?, error: StreamError?) {
        let (events, continuation) = AsyncStream.makeStream(of: StreamEvent.self)
        let receiver = StreamProcess(url: url, into: buffer, options: policy.stream) { event in
            continuation.yield(event)
            if case .ended = event { continuation.finish() }
        }
        self.receiver = receiver
        receiver.start()
        // Stopped before it began: it ends at once.
        if stopped { receiver.stop() }
        var soundedAt: ContinuousClock.Instant?
        for await event in events {
            guard !stopped else { continue }
            switch event {
            case .connected(let info):
                self.info = info
                change(to: .buffering)
            case .sounding:
                soundedAt = .now
                soundings += 1
                error = nil
                change(to: .playing)
            case .title(let title):
                self.title = title
                onChange(self)
            case .ended(let error):
                self.receiver = nil
                return (soundedAt.map { .now - $0 }, error)
            }
        }
        self.receiver = nil
        return (soundedAt.map { .now - $0 }, nil)
    }

    private func change(to phase: RadioState.Phase) {
        guard !stopped else { return }
        self.phase = phase
        onChange(self)
    }
}
