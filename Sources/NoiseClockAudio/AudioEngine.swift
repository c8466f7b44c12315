import CALSA
import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// What `B/status` says of the audio output.
public struct AudioStatus: Sendable, Hashable {
    public var device: String
    /// True while the device is open and playing, or idle with no error since it last worked.
    public var ok: Bool
    public var error: String?
    /// Underruns recovered since start.
    public var xruns: Int

    public init(device: String, ok: Bool = true, error: String? = nil, xruns: Int = 0) {
        self.device = device
        self.ok = ok
        self.error = error
        self.xruns = xruns
    }
}

/// The software mixer playing to one ALSA device, on a thread of its own.
///
/// The device is opened when something plays and closed (after draining) when nothing does, so an
/// idle node uses no CPU for audio and leaves the card free. Periods of 250 ms in a buffer of about
/// 500 ms: four writes a second (each write through a sound server costs more than the mixing),
/// yet a volume change or a dismissed alarm is heard within half a second. When the device
/// cannot be opened or fails, the engine reports it and tries again every `retryInterval`.
public final class AudioEngine: Sendable {
    public static let periodFrames = AudioFormat.frames(milliseconds: 250)
    public static let bufferMicroseconds: UInt32 = 500_000

    public let device: String
    /// An ALSA configuration file read (again) at every open, defining `device`; nil for the system's.
    public let configurationFile: String?
    private let logger: Logger
    private let retryInterval: Duration
    private let mixer = Mutex(Mixer())
    private let shared: Mutex<Shared>
    private let wake = WakeSignal()
    private let onStatus: @Sendable (AudioStatus) -> Void

    private struct Shared {
        var status: AudioStatus
        var stopping = false
        var running = false
        var framesWritten = 0
        /// The device has been opened once in this process (see `prepare`).
        var warm = false
        var warmUpWanted = false

        init(device: String) { status = AudioStatus(device: device) }
    }

    /// `onStatus` is called (on the audio thread) whenever the status changes.
    public init(
        device: String, configurationFile: String? = nil, retryInterval: Duration = .seconds(2), logger: Logger,
        onStatus: @escaping @Sendable (AudioStatus) -> Void = { _ in }
    ) {
        self.device = device
        self.configurationFile = configurationFile
        self.retryInterval = retryInterval
        self.logger = logger
        self.onStatus = onStatus
        shared = Mutex(Shared(device: device))
        nc_alsa_quiet()
    }

    public var status: AudioStatus { shared.withLock { $0.status } }

    /// Frames handed to the device since start.
    public var framesWritten: Int { shared.withLock { $0.framesWritten } }

    /// Whether the device has been opened in this process (by a play or by `prepare`).
    public var hasOpenedDevice: Bool { shared.withLock { $0.warm } }

    /// True while anything is in the mix.
    public var isPlaying: Bool { !mixer.withLock { $0.isEmpty } }

    /// Changes the mix under the engine's lock, then wakes the audio thread.
    public func update<T>(_ change: (inout Mixer) -> T) -> T {
        let result = mixer.withLock { change(&$0) }
        wake.signal()
        return result
    }

    /// The first open of an ALSA device in a process reads ALSA's configuration and loads what
    /// its hooks name (Debian's `pulse` hook: libpulse and some twenty libraries): about 5 ms of
    /// CPU and 5 MB of mapped libraries, where every later open takes microseconds. A source that
    /// knows it will sound soon (an alarm within the minute, a running timer, a meditation
    /// starting) calls this, and the audio thread opens the device once and closes it at once, so
    /// that the sound does not pay for it at its instant, beside other nodes ringing at that
    /// instant. An idle node that never sounds never loads it. Returns at once; does nothing once
    /// the device has been opened, or with a `configurationFile` (read at each open anyway). A
    /// failure is left to the first real open to report.
    public func prepare() {
        guard configurationFile == nil else { return }
        let signal = shared.withLock { state -> Bool in
            guard !state.warm, !state.warmUpWanted else { return false }
            state.warmUpWanted = true
            return true
        }
        if signal { wake.signal() }
    }

    /// Starts the audio thread; `stop` ends it.
    public func start() {
        let first = shared.withLock { state -> Bool in
            defer { state.running = true }
            return !state.running
        }
        guard first else { return }
        Threads.start(name: "audio output") { [self] in playLoop() }
    }

    public func stop() {
        shared.withLock { $0.stopping = true }
        wake.signal()
    }

    private var stopping: Bool { shared.withLock { $0.stopping } }

    private func setStatus(_ change: (inout AudioStatus) -> Void) {
        let (changed, status) = shared.withLock { state -> (Bool, AudioStatus) in
            let before = state.status
            change(&state.status)
            return (before != state.status, state.status)
        }
        if changed { onStatus(status) }
    }

    private func playLoop() {
        var pcm: PCM?
        var period = [Int16](repeating: 0, count: Self.periodFrames * AudioFormat.channels)
        // A real card blocks in writei when its buffer is full; a file or null sink never does.
        // Pacing to the clock keeps such sinks at real time (and a file sink from filling the disk).
        var openedAt = ContinuousClock.now
        var framesSinceOpen = 0
        while !stopping {
            if mixer.withLock({ $0.isEmpty }) {
                pcm?.drain()
                pcm = nil
                if shared.withLock({ state in defer { state.warmUpWanted = false }; return state.warmUpWanted && !state.warm }) {
                    if case .success(let opened) = openDevice() {
                        opened.drop()
                        shared.withLock { $0.warm = true }
                    }
                    continue
                }
                // Nothing to play: sleep until `update` or `stop` signals (the hour is only a
                // backstop), so an idle node spends no wake-ups on audio.
                wake.wait(timeout: .seconds(3600))
                continue
            }
            if pcm == nil, !mixer.withLock({ $0.hasReadyInput }) {
                // Only sources still being made (speech before its first period): opened now, the
                // device would get 750 ms of silence ahead of their sound. They are ready within
                // a few tens of milliseconds (or end: an engine that fails finishes its buffer).
                wake.wait(timeout: .milliseconds(10))
                continue
            }
            if pcm == nil {
                switch openDevice() {
                case .success(let opened):
                    pcm = opened
                    shared.withLock { $0.warm = true }
                    openedAt = ContinuousClock.now
                    framesSinceOpen = 0
                case .failure(let error):
                    if status.error != error.reason { logger.warning("audio device unavailable", metadata: ["device": "\(device)", "error": "\(error.reason)"]) }
                    setStatus { $0.ok = false; $0.error = error.reason }
                    waitToRetry()
                    continue
                }
            }
            guard let open = pcm else { continue }
            period.withUnsafeMutableBufferPointer { buffer in
                mixer.withLock { $0.render(into: buffer) }
            }
            if let failure = write(period, to: open) {
                // A device that opens but cannot be written to is tried again after the same
                // pause as one that cannot be opened: at once, it would flip the status (and
                // B/status, and an alarm's sound_failed) as fast as the loop runs.
                if status.error != failure { logger.warning("audio device failed; reopening", metadata: ["device": "\(device)", "error": "\(failure)"]) }
                pcm = nil
                setStatus { $0.ok = false; $0.error = failure }
                waitToRetry()
                continue
            }
            framesSinceOpen += Self.periodFrames
            // Working once a period is written, not when it opens; after a failure, once a second
            // of sound is written: a sink that takes the first periods and fails after them (ALSA's
            // file plugin in a folder that is gone) would otherwise turn B/status and an alarm's
            // sound_failed back and forth at each try.
            let failing = status.error != nil
            if failing ? framesSinceOpen >= AudioFormat.sampleRate : !status.ok { setStatus { $0.ok = true; $0.error = nil } }
            let played = Duration.microseconds(Int64(framesSinceOpen) * 1_000_000 / Int64(AudioFormat.sampleRate))
            let ahead = played - openedAt.duration(to: .now) - .microseconds(Int64(Self.bufferMicroseconds))
            Threads.sleep(ahead)
        }
        pcm?.drop()
        pcm = nil
    }

    /// Sleeps `retryInterval`, or until `stop`.
    private func waitToRetry() {
        let retryAt = ContinuousClock.now + retryInterval
        while !stopping, ContinuousClock.now < retryAt {
            wake.wait(timeout: ContinuousClock.now.duration(to: retryAt))
        }
    }

    private func openDevice() -> Result<PCM, AudioError> {
        var pcm: OpaquePointer?
        var rc: Int32
        if let configurationFile {
            guard let text = FileManager.default.contents(atPath: configurationFile) else {
                return .failure(AudioError(subject: device, reason: "cannot read ALSA configuration \(configurationFile)"))
            }
            var top: OpaquePointer?
            var input: OpaquePointer?
            snd_config_top(&top)
            defer { if let top { snd_config_delete(top) } }
            rc = text.withUnsafeBytes { bytes in
                snd_input_buffer_open(&input, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), text.count)
            }
            if rc >= 0, let input {
                rc = snd_config_load(top, input)
                snd_input_close(input)
            }
            if rc >= 0 { rc = snd_pcm_open_lconf(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0, top) }
        } else {
            rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0)
        }
        guard rc >= 0, let handle = pcm else {
            return .failure(AudioError(subject: device, reason: "cannot open \(device): \(String(cString: snd_strerror(rc)))"))
        }
        let opened = PCM(handle)
        rc = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(AudioFormat.channels),
            UInt32(AudioFormat.sampleRate), 1, Self.bufferMicroseconds)
        guard rc >= 0 else {
            return .failure(AudioError(subject: device, reason: "cannot set 44.1 kHz stereo 16-bit on \(device): \(String(cString: snd_strerror(rc)))"))
        }
        logger.debug("audio device open", metadata: ["device": "\(device)"])
        return .success(opened)
    }

    /// Writes one period; recovers underruns (counted). Returns a reason when the device is lost.
    private func write(_ period: [Int16], to output: PCM) -> String? {
        let pcm = output.handle
        var offset = 0
        let frames = period.count / AudioFormat.channels
        while offset < frames {
            let rc = period.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(pcm, buffer.baseAddress.map { $0 + offset * AudioFormat.channels }, snd_pcm_uframes_t(frames - offset))
            }
            if rc >= 0 {
                offset += Int(rc)
                continue
            }
            if rc == -Int(EPIPE) {
                setStatus { $0.xruns += 1 }
                logger.debug("audio underrun recovered")
            }
            if snd_pcm_recover(pcm, Int32(rc), 1) < 0 {
                return "\(device): \(String(cString: snd_strerror(Int32(rc))))"
            }
        }
        shared.withLock { $0.framesWritten += frames }
        return nil
    }
}

/// An open ALSA playback handle, used only on the audio thread. It is closed in one place, when
/// the last reference goes; `drain` (let the buffer play out) or `drop` (stop at once) first.
private final class PCM {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    func drain() { snd_pcm_drain(handle) }

    func drop() { snd_pcm_drop(handle) }

    deinit { snd_pcm_close(handle) }
}
