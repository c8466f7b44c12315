import FoundationEssentials
import NoiseClockCore
import NoiseClockHub

/// What the scheduler's changes bring about: the tones, the events and the alarm topics, and the
/// helpers they share.
extension AlarmScheduler {
    // MARK: Sound and events

    /// Sound and events for what happened, in order.
    func perform(_ outcomes: [Ringing.Outcome]) {
        guard !outcomes.isEmpty else { return }
        let zone = time.zone()
        for outcome in outcomes {
            switch outcome {
            case .ring(let due):
                // The event first: it is what a subscriber times the alarm by.
                let snoozes = state.ringing.current?.due == due ? state.ringing.current?.snoozeCount ?? 0 : 0
                emit(
                    "alarm_ringing",
                    eventDetails(due.alarmID, due.label, ["fires_at": iso(due.firesAt, zone), "snooze_count": .number(Double(snoozes))]))
                logger.info("alarm ringing", metadata: ["alarm": "\(due.alarmID)", "label": "\(due.label)"])
                // After a restart an escalated ring goes on firm.
                let escalated = state.ringing.current?.due == due && state.ringing.current?.escalated == true
                startTone(for: due.alarmID, escalated: escalated)
            case .escalated(let due):
                let alarm = try? state.book.alarm(due.alarmID)
                emit(
                    "alarm_escalated",
                    eventDetails(due.alarmID, due.label, [
                        "after_s": .number(Double(due.escalateAfterSeconds)), "sound": .string(alarm.map(escalationSound) ?? defaultSound),
                    ]))
                logger.info("alarm escalated", metadata: ["alarm": "\(due.alarmID)", "after_s": "\(due.escalateAfterSeconds)"])
                startTone(for: due.alarmID, escalated: true)
            case .snoozed(let due, let until):
                emit("alarm_snoozed", eventDetails(due.alarmID, due.label, ["until": iso(until, zone)]))
                stopToneUnlessRinging()
            case .dismissed(let due):
                emit("alarm_dismissed", eventDetails(due.alarmID, due.label, [:]))
                stopToneUnlessRinging()
                dismissedForWake(due)
                // The morning briefing follows the dismiss (SPEC §16): the speaker makes and says it.
                if (try? state.book.alarm(due.alarmID))?.briefing == true {
                    hub.signals.send(.briefing(alarmID: due.alarmID, label: due.label, at: time.now()))
                }
            case .autoSilenced(let due):
                stopToneUnlessRinging()
                emit(
                    "alarm_auto_silenced", eventDetails(due.alarmID, due.label, ["after_min": .number(Double(due.ringTimeoutMinutes))]))
            case .missed(let due, let instant):
                stopToneUnlessRinging()
                logger.warning("snoozed alarm missed", metadata: ["alarm": "\(due.alarmID)", "was_due": "\(instant)"])
                emit("alarm_missed", eventDetails(due.alarmID, due.label, ["fires_at": iso(instant, zone)]))
            case .waiting(let due):
                logger.info("alarm due while another rings; it rings next", metadata: ["alarm": "\(due.alarmID)"])
            }
        }
        publishRinging()
    }

    /// How long an escalation's tone takes to rise to full while the gentle one fades out.
    static let escalationRampSeconds = 3

    /// Rings the alarm's tone through the arbiter, over everything else (the noise fades out).
    /// Escalated: its `escalate_sound` (its own sound when none) at volume 100, cross-faded from
    /// the tone that rang.
    func startTone(for id: String, escalated: Bool = false) {
        let alarm = try? state.book.alarm(id)
        if !escalated, let alarm, AlarmRadio.isStation(alarm.sound) {
            // A station, its fallbacks, then the built-in tone (SPEC §15).
            let started = radio?.start(alarmID: id, sound: alarm.sound, volume: alarm.volume, rampSeconds: alarm.fadeInSeconds) { [self] ramp in
                arbiter?.ring(
                    .alarm, sound: defaultSound, kind: .alarm, fallback: defaultSound, library: library, volume: alarm.volume,
                    rampSeconds: ramp, logger: logger)
            }
            if started == true { return }
            // The station was deleted since the alarm was set: the tone, and why.
            emit("alarm_fallback", [
                "alarm_id": .string(id), "from": .string(alarm.sound), "to": "tone",
                "reason": .string("no station \(alarm.sound.dropFirst("radio:".count))"),
            ])
        }
        radio?.stop()
        if escalated {
            arbiter?.ring(
                .alarm, sound: alarm.map(escalationSound) ?? defaultSound, kind: .alarm, fallback: defaultSound, library: library,
                volume: 100, rampSeconds: Self.escalationRampSeconds, logger: logger)
            return
        }
        arbiter?.ring(
            .alarm, sound: toneSound(alarm), kind: .alarm, fallback: defaultSound, library: library, volume: alarm?.volume ?? 80,
            rampSeconds: alarm?.fadeInSeconds ?? 30, logger: logger)
    }

    /// The tone `alarm` escalates to.
    /// A station's alarm escalates to the built-in tone unless it names a tone of its own.
    func escalationSound(_ alarm: Alarm) -> String {
        let sound = alarm.escalateSound.isEmpty ? alarm.sound : alarm.escalateSound
        return AlarmRadio.isStation(sound) ? defaultSound : sound
    }

    /// The tone an alarm rings: a station's alarm's is the built-in tone (its fallback's last).
    func toneSound(_ alarm: Alarm?) -> String {
        guard let alarm, !AlarmRadio.isStation(alarm.sound) else { return defaultSound }
        return alarm.sound
    }

    /// Stops the tone when the alarm that rang is over. When another alarm rings now (it was
    /// waiting), its own ring outcome follows and its tone takes over from this one.
    func stopToneUnlessRinging() {
        guard state.ringing.phase != .ringing else { return }
        radio?.stop()
        arbiter?.stopTone(.alarm)
    }

    // MARK: Publishing

    func publishAll() {
        let zone = time.zone()
        publishAlarms(zone: zone)
        publishRinging()
        publishNext(now: time.now(), zone: zone)
        updateWake(now: time.now(), zone: zone)
    }

    /// `B/alarms` (the hub passes it on only when it changed). Each alarm says which occurrence
    /// in the coming month a holiday, a day off or the vacation keeps quiet (`next_skip`).
    func publishAlarms(zone: Zone) {
        let now = time.now()
        let daysOff = self.daysOff(now: now, zone: zone)
        let language = time.settings.current.language
        hub.publish(
            StateTopic.alarms, .array(state.book.alarms.map { json(of: $0, now: now, zone: zone, daysOff: daysOff, language: language) }))
        hub.signals.send(.alarms(state.book.alarms))
    }

    /// An alarm as `B/alarms` lists it and the verbs answer it: SPEC §3's object with its
    /// `next_fire`, and the occurrence in the coming month kept quiet next (`next_skip`).
    func json(of alarm: Alarm, now: Date, zone: Zone, daysOff: DaysOff, language: Language) -> JSONValue {
        var members = alarm.json(nextFire: nextFires[alarm.id].map { ISOTime.string($0, in: zone) }).objectValue ?? [:]
        // Only an alarm something can keep quiet is looked through (a month of occurrences each minute).
        let mayBeQuiet = alarm.skipHolidays || alarm.skipNext != nil || daysOff.vacationUntil != nil || alarm.calendar != nil
        let skip = mayBeQuiet ? AlarmSchedule.nextSkip(of: alarm, after: now, in: zone, daysOff: daysOff, days: 31) : nil
        members["next_skip"] = skip.map { skip in
            [
                "fires_at": iso(skip.instant, zone), "reason": .string(skip.skip.reason.rawValue),
                "name": skip.skip.name(language).map { .string($0) } ?? .null,
            ]
        } ?? .null
        members["next"] = move(of: alarm, now: now, zone: zone, daysOff: daysOff)?.json { ISOTime.string($0, in: zone) } ?? .null
        return .object(members)
    }

    /// Why the next ring of `alarm` is not at its own time (a calendar, the weather), or nil.
    func move(of alarm: Alarm, now: Date, zone: Zone, daysOff: DaysOff) -> AlarmMove? {
        guard alarm.calendar != nil || alarm.earlierIf != nil else { return nil }
        let after = max(now, state.book.lastHandled[alarm.id] ?? now)
        return AlarmSchedule.nextPlan(of: alarm, after: after, in: zone, daysOff: state.context(daysOff))?.move
    }

    /// The days off in force: `settings.wake` with the public holidays of `wake.holidays`, for the
    /// years around now (made again when either changes).
    func daysOff(now: Date, zone: Zone) -> DaysOff {
        let wake = time.settings.current.wake
        let year = LocalTime(now, in: zone).date.year
        var daysOff = made(wake: wake, year: year)
        daysOff.agenda = agenda
        daysOff.weather = weather
        return daysOff
    }

    private func made(wake: WakeSettings, year: Int) -> DaysOff {
        if let made = daysOffMade, made.wake == wake, made.year == year { return made.daysOff }
        let daysOff = wake.daysOff(calendar: holidays, years: (year - 1)...(year + 2))
        daysOffMade = (wake, year, daysOff)
        return daysOff
    }

    /// `B/holidays` when the local date, the days off or the language changed.
    func publishHolidays(now: Date, zone: Zone) {
        let today = LocalTime(now, in: zone).date
        let daysOff = self.daysOff(now: now, zone: zone)
        let language = time.settings.current.language
        if let (date, published, publishedLanguage) = publishedHolidays, date == today, published == daysOff, publishedLanguage == language {
            return
        }
        publishedHolidays = (today, daysOff, language)
        hub.publish(StateTopic.holidays, daysOff.json(from: today, language: language))
    }

    /// `B/alarm/state`, with `sound_failed`: why a ringing alarm cannot sound (the audio output
    /// fails), null while it can. A ring that cannot sound sends `alarm_failed` once (SPEC §15);
    /// the face then rings in the browser, and the engine keeps trying the device.
    func publishRinging() {
        let ringing = state.ringing.phase == .ringing
        let failure = ringing ? audioFailure : nil
        if let failure, let due = state.ringing.current?.due, !failureReported {
            failureReported = true
            logger.error("alarm cannot sound", metadata: ["alarm": "\(due.alarmID)", "reason": "\(failure)"])
            emit("alarm_failed", eventDetails(due.alarmID, due.label, ["reason": .string(failure)]))
        }
        if !ringing { failureReported = false }
        hub.publish(StateTopic.alarmState, ringingJSON)
        hub.signals.send(.alarmRinging(ringing))
    }

    /// `B/alarm/state` (also the answer of `snooze` and `dismiss`).
    var ringingJSON: JSONValue {
        var json = state.ringing.json { ISOTime.string($0, in: time.zone()) }.objectValue ?? [:]
        json["sound_failed"] = state.ringing.phase == .ringing ? audioFailure.map(JSONValue.string) ?? .null : .null
        return .object(json)
    }


    func emit(_ name: String, _ details: [String: JSONValue]) {
        hub.emit(time.event(name, details))
    }

    /// The next alarm to ring and its label (`say/next_alarm`); nil when none is set.
    public func nextAlarm() -> (at: Date, label: String)? {
        guard let (id, instant) = AlarmClockwork.soonest(nextFires), let alarm = try? state.book.alarm(id) else { return nil }
        return (instant, alarm.label)
    }

    /// `B/alarm/next` when the next alarm changes, and at each minute for `in_s`.
    func publishNext(now: Date, zone: Zone) {
        let minute = Int64((now.timeIntervalSince1970 / 60).rounded(.down))
        let value: JSONValue
        if let (id, instant) = AlarmClockwork.soonest(nextFires), let alarm = try? state.book.alarm(id) {
            var members: [String: JSONValue] = [
                "id": .string(id), "label": .string(alarm.label), "fires_at": iso(instant, zone),
                "in_s": .number(max(0, instant.timeIntervalSince(now).rounded(.down))),
            ]
            let move = move(of: alarm, now: now, zone: zone, daysOff: daysOff(now: now, zone: zone)) ?? AlarmMove()
            for (key, value) in move.json(iso: { ISOTime.string($0, in: zone) }).objectValue ?? [:] { members[key] = value }
            value = .object(members)
        } else {
            value = ["id": nil, "label": nil, "fires_at": nil, "in_s": nil, "earlier_by_min": 0, "reason": nil, "event": nil]
        }
        var identity = value.objectValue ?? [:]
        identity["in_s"] = nil
        if let (published, publishedMinute) = publishedNext, published == .object(identity), publishedMinute == minute { return }
        publishedNext = (.object(identity), minute)
        hub.publish(StateTopic.alarmNext, value)
    }

    // MARK: Helpers

    /// Works out the next fires again after a change, and publishes the alarm topics.
    func refreshNextFires(now: Date) {
        let zone = time.zone()
        nextFires = AlarmClockwork.nextFires(state, now: now, zone: zone, daysOff: daysOff(now: now, zone: zone))
        prepareOutputIfDue(now: now)
        publishAll()
    }

    /// An alarm within the minute (the scheduler looks at least once a minute, and after every
    /// change): the output gets ready now and its tone is decoded ahead, so the tone starts at the
    /// instant (`AudioOutput.prepare`, `SoundLibrary.keepReady`); otherwise no tone is kept.
    func prepareOutputIfDue(now: Date) {
        guard let arbiter else { return }
        let soon = nextFires.filter { $0.value.timeIntervalSince(now) <= AudioArbiter.soon }.keys.sorted()
        // The tone an alarm escalates to is decoded ahead too: it starts while the first one rings.
        let alarms = soon.map { id in try? state.book.alarm(id) }
        let escalations = alarms.compactMap { $0 }.filter { $0.escalateAfterSeconds > 0 }.map(escalationSound)
        library.keepReady(alarms.map(toneSound) + escalations, for: "alarms")
        // A station is connected ahead; its fallback tone is kept decoded above.
        radio?.prepare(alarms.compactMap { $0.map { (alarmID: $0.id, sound: $0.sound) } })
        guard !soon.isEmpty else { return }
        arbiter.prepare()
    }

    /// Wakes the scheduler loop, so a change is seen at once rather than after its current sleep.
    func wake() {
        wakeUp.wake()
    }

    var defaultSound: String { library.catalog.defaultSound(of: .alarm)?.id ?? "" }

    /// A tone of the alarm catalog, or for `sound` a station (`radio:<id or name>`, SPEC §15).
    func alarmSound(_ reference: String, field: String = "sound") throws(CommandError) -> String {
        if AlarmRadio.isStation(reference) {
            guard field == "sound" else { throw .invalidField(field, "an escalation rings a tone, not a station") }
            guard let station = radio?.station(ofSound: reference) else {
                throw CommandError(.notFound, "no station \(reference.dropFirst("radio:".count))", field: field)
            }
            return "radio:\(station.id)"
        }
        return try library.sound(reference, field: field, kind: .alarm).id
    }

    func newID(in book: AlarmBook) -> String {
        NodeIDs.new { id in book.alarms.contains { $0.id == id } }
    }

    func iso(_ instant: Date, _ zone: Zone) -> JSONValue {
        .string(ISOTime.string(instant, in: zone))
    }

    func eventDetails(_ id: String, _ label: String, _ extra: [String: JSONValue]) -> [String: JSONValue] {
        extra.merging(["alarm_id": .string(id), "label": .string(label)]) { a, _ in a }
    }
}
