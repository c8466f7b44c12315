/// The speech components of the discovery payload (SPEC §16): the "Announce" entity on Home
/// Assistant's MQTT notify platform, whose message the node speaks (`say`), and the "Say the
/// time" button (`say/time`), both only when the node can speak; and the speech events for the
/// event entity (always listed, so that automations on them stay valid).
extension HomeAssistantDiscovery {
    /// The speech events the event entity reports, and the morning briefing's text.
    public static let speechEvents = ["speech_started", "speech_finished", "speech_dropped", "briefing"]

    /// What the Announce entity sends `say`: the message as the `text` of a JSON object, so that
    /// quotes, newlines and a message that would parse as a JSON value (`55`, `true`, `{…}`) reach
    /// the node as the text they are. Home Assistant's notify title is not sent.
    public static let announceTemplate = "{{ {'text': value} | tojson }}"

    var speechComponents: [String: JSONValue] {
        guard speech else { return [:] }
        return [
            "announce": component("notify", "announce", command: topics.command("say"), [
                "command_template": .string(Self.announceTemplate), "icon": "mdi:bullhorn",
            ]),
            "say_time": component("button", "say_time", command: topics.command("say/time"), [
                "payload_press": "PRESS", "icon": "mdi:account-voice",
            ]),
        ]
    }
}
