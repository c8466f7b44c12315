/// The radio's components of the discovery payload (SPEC §15): the "Radio" select (the stations
/// and an off option), the "Radio playing" sensor and the "Radio volume" number, all reading
/// `B/radio`; and the radio's events for the event entity. The select's options are the stations'
/// names, so the node publishes the payload again when the stations change.
extension HomeAssistantDiscovery {
    /// The radio events the event entity reports, and the alarm's when its station fails it.
    public static let radioEvents = ["radio_started", "radio_stopped", "radio_failed", "alarm_fallback", "alarm_failed"]

    /// The select's options, off first, each with the station id it plays (nil: off). A station
    /// is shown by its name; one whose name is the off option's (in any case) by its name and id,
    /// so that every option is one thing.
    func radioOptions(_ stations: [RadioStation]) -> [(option: String, station: String?)] {
        let off = names.radioOff
        return [(off, nil)] + stations.map { station in
            (station.name.lowercased() == off.lowercased() ? "\(station.name) (\(station.id))" : station.name, station.id)
        }
    }

    func radioComponents(_ stations: [RadioStation]) -> [String: JSONValue] {
        let radio = topics.state(StateTopic.radio), off = quoted(names.radioOff)
        let options = radioOptions(stations)
        let shown = options.compactMap { pair in pair.station.map { "\(quoted($0)): \(quoted(pair.option))" } }.joined(separator: ", ")
        let sent = options.map { "\(quoted($0.option)): \($0.station.map(quoted) ?? "none")" }.joined(separator: ", ")
        return [
            // A station that plays (or connects, buffers, retries) shows as its option; an address
            // played as it is, which no option names, as unknown; nothing playing as off. The
            // option sends `radio/play` its station's id, off `{"station":null}`, which stops.
            "radio": component("select", "radio", state: radio, command: topics.command("radio/play"), [
                "options": .array(options.map { .string($0.option) }),
                "value_template": .string(
                    "{% set options = {\(shown)} %}{{ options.get(value_json.station, 'None') if value_json.playing else \(off) }}"),
                "command_template": .string("{{ {'station': {\(sent)}.get(value)} | tojson }}"),
                "icon": "mdi:radio",
            ]),
            // The title of what plays, else the station's name, else off: never unknown.
            "radio_playing": component("sensor", "radio_playing", state: radio, [
                "value_template": .string(
                    "{{ value_json.now_playing if value_json.playing and value_json.now_playing else "
                        + "(value_json.name if value_json.playing and value_json.name else \(off)) }}"),
                "json_attributes_topic": .string(radio),
                "json_attributes_template":
                    "{{ {'station': value_json.station, 'name': value_json.name, 'now_playing': value_json.now_playing, 'state': value_json.state, 'codec': value_json.codec, 'bitrate_kbps': value_json.bitrate_kbps, 'error': value_json.error} | tojson }}",
                "icon": "mdi:radio-tower",
            ]),
            "radio_volume": component("number", "radio_volume", state: radio, command: topics.command("radio/volume"), [
                "min": 0, "max": 100, "step": 1, "unit_of_measurement": "%", "mode": "slider",
                "value_template": "{{ value_json.volume }}", "icon": "mdi:volume-high",
            ]),
        ]
    }
}
