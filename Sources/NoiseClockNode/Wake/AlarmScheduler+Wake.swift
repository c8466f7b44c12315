import FoundationEssentials
import NoiseClockCore
import NoiseClockHub
import NoiseClockMQTT
import NoiseClockSystem

/// What the wake phases remember between the scheduler's looks.
struct WakeTracking {
    /// The view published last (nil before the first).
    var view: WakeView?
    /// The last dismissed ring: `awake` for half an hour after it.
    var dismissal: WakeClockwork.Dismissal?
    /// The ring or snooze seen at the last look, for `wake_awake`'s snooze count.
    var session: Ringing.Session?
}

/// The wake phases (SPEC §12): retained `B/wake`, the events `wake_sunrise` and `wake_awake`, and
/// `NodeSignal.wake` for the screen. Worked out (`WakeClockwork`) from the alarms' next rings, the
/// ring in progress and the last dismissal, at each of the scheduler's looks; during a sunrise the
/// scheduler looks every `wakeProgressInterval` so `B/wake`'s progress moves on.
extension AlarmScheduler {
    /// How often `B/wake` says how far a sunrise has come (the face and the screen work out the
    /// level at each instant themselves).
    nonisolated static let wakeProgressInterval: TimeInterval = 30

    /// The alarms' next rings that have a sunrise before them (occurrences a holiday, a day off or
    /// the vacation keeps quiet are not among the next fires, so they get no sunrise either).
    func upcomingWakes() -> [WakeClockwork.Upcoming] {
        nextFires.sorted { $0.key < $1.key }.compactMap { id, fire in
            guard let alarm = try? state.book.alarm(id), alarm.enabled, alarm.sunriseMinutes > 0 else { return nil }
            return WakeClockwork.Upcoming(alarmID: id, label: alarm.label, ringAt: fire, sunriseMinutes: alarm.sunriseMinutes)
        }
    }

    /// Publishes where the waking up is now, with the events of what changed; returns when to look
    /// again for its sake (a sunrise beginning, its progress, `awake` ending), nil when nothing is timed.
    @discardableResult
    func updateWake(now: Date, zone: Zone) -> Date? {
        let upcoming = upcomingWakes()
        let book = state.book
        let view = WakeClockwork.view(
            at: now, upcoming: upcoming, session: state.ringing.current, dismissal: wakeTracking.dismissal
        ) { id in (try? book.alarm(id))?.sunriseMinutes ?? 0 }
        let before = wakeTracking.view
        wakeTracking.view = view
        if let session = state.ringing.current { wakeTracking.session = session }
        if view.phase == .sunrise, before?.phase != .sunrise || before?.alarmID != view.alarmID, let ringAt = view.ringAt {
            logger.info("sunrise", metadata: ["alarm": "\(view.alarmID ?? "")", "ring_at": "\(ringAt)"])
            emit(
                "wake_sunrise",
                eventDetails(view.alarmID ?? "", view.label ?? "", [
                    "ring_at": iso(ringAt, zone), "sunrise_started_at": view.sunriseStartedAt.map { iso($0, zone) } ?? .null,
                ]))
        }
        hub.publish(StateTopic.wake, view.json { ISOTime.string($0, in: zone) })
        hub.signals.send(.wake(WakeLight(view)))
        var next = WakeClockwork.nextPhaseChange(after: now, upcoming: upcoming, dismissal: wakeTracking.dismissal)
        if view.phase == .sunrise {
            let progress = now.addingTimeInterval(Self.wakeProgressInterval)
            next = next.map { min($0, progress) } ?? progress
        }
        let lights = view.alarmID.flatMap { try? book.alarm($0) }?.lights ?? false
        if let lampsNext = lamps?.drive(view, before: before, lights: lights, now: now) {
            next = next.map { min($0, lampsNext) } ?? lampsNext
        }
        return next
    }

    /// A ring was dismissed (or its alarm disabled or deleted while it rang): `awake` for half an
    /// hour, and `wake_awake` with how long it rang and how often it was snoozed.
    func dismissedForWake(_ due: Ringing.Due) {
        let now = time.now(), zone = time.zone()
        let minutes = (try? state.book.alarm(due.alarmID))?.sunriseMinutes ?? 0
        wakeTracking.dismissal = WakeClockwork.Dismissal(
            alarmID: due.alarmID, label: due.label, ringAt: due.firesAt, at: now, sunriseMinutes: minutes)
        let snoozes = wakeTracking.session?.due == due ? wakeTracking.session?.snoozeCount ?? 0 : 0
        emit(
            "wake_awake",
            eventDetails(due.alarmID, due.label, [
                "rang_s": .number(max(0, now.timeIntervalSince(due.firesAt).rounded(.down))), "snoozes": .number(Double(snoozes)),
                "ring_at": iso(due.firesAt, zone),
            ]))
        wakeTracking.session = nil
    }
}

/// The lamps of `wake.lights` and where they are (SPEC §12): during the sunrise of an alarm with
/// `lights`, each gets a command at most every `min_interval_s`, taking it to the level the curve
/// gives one interval later over a transition of that interval, so the ramp looks continuous; at
/// the ring they go to full and stay on through `awake`; a sunrise that ends without its ring
/// (the alarm switched off, skipped or deleted) turns them off again. While the broker is away
/// nothing is sent: the next look after it is back sends the level of that moment.
@NodeActor
public final class WakeLamps {
    nonisolated let lamps: [WakeLamp]
    nonisolated let transport: any MQTTTransport
    /// When each lamp got its last command; empty while they are not driven.
    var sent: [Date?]
    /// The lamps were turned on by a sunrise (and not turned off since).
    var lit = false
    /// They were taken to full after the ring.
    var full = false

    public nonisolated init(lamps: [WakeLamp], transport: any MQTTTransport) {
        self.lamps = lamps
        self.transport = transport
        sent = Array(repeating: nil, count: lamps.count)
    }

    /// Drives the lamps for `view` (what `before` was tells a sunrise that ended from one that
    /// rang); returns when to look again for their sake.
    func drive(_ view: WakeView, before: WakeView?, lights: Bool, now: Date) -> Date? {
        guard !lamps.isEmpty else { return nil }
        switch view.phase {
        case .sunrise where lights:
            full = false
            guard let start = view.sunriseStartedAt, let ring = view.ringAt, ring > start else { return nil }
            var next: Date?
            for (index, lamp) in lamps.enumerated() {
                let interval = TimeInterval(lamp.minIntervalSeconds)
                if let last = sent[index], now < last.addingTimeInterval(interval) {
                    let due = last.addingTimeInterval(interval)
                    next = next.map { min($0, due) } ?? due
                    continue
                }
                guard transport.isConnected else {
                    let retry = now.addingTimeInterval(interval)
                    next = next.map { min($0, retry) } ?? retry
                    continue
                }
                // Where the curve is one interval from now (never past the ring), reached over that interval.
                let ahead = min(ring, now.addingTimeInterval(interval))
                let progress = min(1, max(0, ahead.timeIntervalSince(start) / ring.timeIntervalSince(start)))
                let transition = Int(ahead.timeIntervalSince(now).rounded())
                transport.publish(MQTTMessage(topic: lamp.topic, payload: lamp.command(level: SunriseCurve.level(progress), transition: transition), qos: 1))
                sent[index] = now
                lit = true
                let due = now.addingTimeInterval(interval)
                next = next.map { min($0, due) } ?? due
            }
            return next
        case .ringing, .snoozed, .awake:
            guard lit, !full else { return nil }
            guard transport.isConnected else { return now.addingTimeInterval(5) }
            for lamp in lamps { transport.publish(MQTTMessage(topic: lamp.topic, payload: lamp.command(level: 1, transition: 1), qos: 1)) }
            full = true
            return nil
        case .idle, .sunrise:
            // A sunrise that ended without its ring (or gave way to one without lights): off again.
            // After `awake` they stay on: the room was lit for someone who got up.
            if lit, before?.phase == .sunrise {
                for lamp in lamps { transport.publish(MQTTMessage(topic: lamp.topic, payload: lamp.off, qos: 1)) }
            }
            lit = false
            full = false
            sent = Array(repeating: nil, count: lamps.count)
            return nil
        }
    }
}
