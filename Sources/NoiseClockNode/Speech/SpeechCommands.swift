import FoundationEssentials
import NoiseClockCore

/// The `say/*` verbs (SPEC §16). The talking clock's phrases are made here from the alarms and
/// the clock, in the node's language, and handed to the speaker.
struct SpeechCommands: CommandGroup {
    let speaker: Speaker
    let alarms: AlarmScheduler
    let time: NodeTime

    func addCommands(to router: inout CommandRouter) {
        router.add("say", shape: .object(bareValue: "text")) { arguments in
            let request = try SayRequest(arguments)
            return try await speaker.say(request)
        }
        router.add("say/time") { _ in
            try await speaker.sayTime()
        }
        router.add("say/next_alarm") { _ in
            try await speaker.sayNextAlarm(alarms.nextAlarm())
        }
        router.add("say/stop") { _ in await speaker.stop() }
    }
}

extension Speaker {
    /// `say/time`: the time and the date.
    func sayTime() throws(CommandError) -> JSONValue {
        let local = LocalTime(time.now(), in: time.zone())
        return try sayPhrase(TalkingClock.now(local, time.settings.current.language), kind: .time)
    }

    /// `say/next_alarm`: when the next alarm rings.
    func sayNextAlarm(_ next: (at: Date, label: String)?) throws(CommandError) -> JSONValue {
        let zone = time.zone(), today = LocalTime(time.now(), in: zone).date
        let phrase = TalkingClock.nextAlarm(
            next.map { (LocalTime($0.at, in: zone), $0.label) }, today: today, time.settings.current.language)
        return try sayPhrase(phrase, kind: .nextAlarm)
    }
}
