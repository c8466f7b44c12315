import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore

extension MeditationSession {
    /// The session under way (or completed, until the next start or a stop).
    enum Session {
        case timed(TimedSession)
        case guided(GuidedPlay)

        var kind: MeditationKind {
            switch self {
            case .timed: .timed
            case .guided: .guided
            }
        }

        var startedAt: Date {
            switch self {
            case .timed(let timed): timed.timer.startedAt
            case .guided(let play): play.startedAt
            }
        }

        /// The seconds meditated by `now`: a timed session's meditation time (preparation and
        /// pauses not counted), the time a guided meditation was heard.
        func meditated(at now: Date) -> TimeInterval {
            switch self {
            case .timed(let timed): timed.timer.elapsed(at: now)
            case .guided(let play): play.listened(at: now)
            }
        }

        /// What every event of the session carries.
        var eventDetails: [String: JSONValue] {
            switch self {
            case .timed(let timed): timed.eventDetails
            case .guided(let play): play.eventDetails
            }
        }
    }

    struct TimedSession {
        var plan: MeditationSettings
        var timer: MeditationTimer

        var eventDetails: [String: JSONValue] {
            ["kind": "timed", "duration_s": .number(timer.duration), "interval_min": .number(Double(plan.intervalMinutes))]
        }
    }

    // MARK: Sound, through the arbiter only

    /// Strikes the gong: an input of its own that plays the file once. A completion gong keeps the
    /// output claimed while it rings out (at most `ringOutLimit`).
    func strike(_ gong: String, volume: Int, ringOut: Bool) {
        guard let arbiter else { return }
        gongCount += 1
        let input = "meditation:gong:\(gongCount)"
        soundingGongs = Array((soundingGongs + [input]).suffix(3))
        if ringOut { releaseAt = time.now().addingTimeInterval(ringOutSeconds(of: gong)) }
        let logger = logger
        // Kept decoded while the session runs (`keepReady`): heard at once, from memory.
        arbiter.open(gong, loops: 1, library: sounds, as: input) { [self] source in
            guard soundingGongs.contains(input) else { return }
            arbiter.update(.meditation) { $0.add(input, source: source, gain: Volume.gain(volume), fadeInFrames: 0) }
        } failed: { error in
            logger.error("the gong could not be played", metadata: ["gong": "\(gong)", "error": "\(error)"])
        }
    }

    /// How long `gong` rings, from its loop kept decoded or its file's length when last opened (at
    /// most `ringOutLimit`; the limit when neither is known, so a completion gong is not cut short).
    func ringOutSeconds(of gong: String) -> TimeInterval {
        min(Self.ringOutLimit, sounds.knownDuration(of: gong) ?? Self.ringOutLimit)
    }

    /// The background of a timed session: looping at its volume while the meditation runs, faded
    /// to silence while paused (kept in the mix, so it goes on where it was).
    func setBackground(audible: Bool) {
        guard let arbiter, case .timed(let timed)? = session, timed.plan.background != MeditationSettings.silent else { return }
        let gain = audible ? Volume.gain(timed.plan.backgroundVolume) : 0
        var present = false
        arbiter.update(.meditation) { present = $0.contains(Self.backgroundInput) }
        if present {
            let frames = fadeFrames
            arbiter.update(.meditation) { $0.setGain(Self.backgroundInput, to: gain, overFrames: frames) }
            return
        }
        guard audible else { return }
        let background = timed.plan.background, logger = logger
        arbiter.open(background, library: sounds, as: Self.backgroundInput) { [self] source in
            // Opened on a thread: added only if the session still wants it heard, at its gain now.
            guard case .timed(let timed)? = session, timed.plan.background == background else { return }
            guard [.preparing, .running].contains(timed.timer.phase(at: time.now())) else { return }
            let frames = fadeFrames, gain = Volume.gain(timed.plan.backgroundVolume)
            arbiter.update(.meditation) { $0.add(Self.backgroundInput, source: source, gain: gain, fadeInFrames: frames) }
        } failed: { error in
            logger.error("the meditation background could not be played", metadata: ["sound": "\(background)", "error": "\(error)"])
        }
    }

    func fadeOut(_ input: String) {
        let frames = fadeFrames
        arbiter?.update(.meditation) { $0.fadeOut(input, overFrames: frames) }
    }

    /// Fades out everything the session had sounding and lets the output go.
    func silenceAll() {
        guard let arbiter else { return }
        let inputs = [Self.backgroundInput, Self.guidedInput] + soundingGongs
        let frames = fadeFrames
        arbiter.update(.meditation) { mix in
            for input in inputs { mix.fadeOut(input, overFrames: frames) }
        }
        soundingGongs = []
        releaseAt = nil
        arbiter.claim(.meditation, false)
    }
}
