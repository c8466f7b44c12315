/// Smart buttons the node listens to itself (SPEC §12 `buttons`): with Home Assistant down, a
/// press still snoozes.
///
/// ```yaml
/// buttons:
///   - topic: zigbee2mqtt/nightstand-button/action
///     member: ""              # a JSON member holding the action; empty: the bare payload
///     actions:
///       single: snooze        # an action -> a verb,
///       double: dismiss
///       hold: {verb: noise/start, payload: '{"sound":"rain"}'}   # or a verb with its payload
/// ```
extension Configuration {
    public struct Button: Sendable, Hashable {
        /// Where it is in the file (`buttons[0]`): named by errors.
        public var key: String
        /// The topic the node subscribes to.
        public var topic: String
        /// The JSON member of the payload that holds the action (Zigbee2MQTT's `action` on the
        /// device's own topic); empty: the whole payload is the action (`…/action` topics).
        public var member: String
        /// What each action does.
        public var actions: [String: ButtonAction]

        public init(key: String, topic: String, member: String = "", actions: [String: ButtonAction]) {
            self.key = key
            self.topic = topic
            self.member = member
            self.actions = actions
        }

        /// The action a message on the topic carries: the payload's text, or the member's value
        /// (a string, a number or a boolean as its text); nil when there is none (Zigbee2MQTT
        /// sends an empty action after each press, and a device state without one).
        public func action(in payload: [UInt8]) -> String? {
            let action: String
            if member.isEmpty {
                action = String(decoding: payload, as: UTF8.self).trimmingWhitespace()
            } else {
                guard case .object(let members)? = try? JSONValue.parse(payload) else { return nil }
                switch members[member] {
                case .string(let text)?: action = text
                case .number(let number)?: action = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
                case .bool(let flag)?: action = flag ? "true" : "false"
                default: return nil
                }
            }
            return action.isEmpty ? nil : action
        }

        /// The command a message on the topic asks for; nil when its action has none.
        public func command(for payload: [UInt8]) -> (action: String, command: ButtonAction)? {
            guard let action = action(in: payload), let command = actions[action] else { return nil }
            return (action, command)
        }
    }

    /// A verb and its payload (JSON text, empty for none), as if sent to `B/cmd/VERB`.
    public struct ButtonAction: Sendable, Hashable {
        public var verb: String
        public var payload: String

        public init(verb: String, payload: String = "") {
            self.verb = verb
            self.payload = payload
        }
    }
}

extension ConfigurationSchema {
    /// The keys whose value may be a YAML list, item indices written `[]`.
    public static let listPaths: Set<String> = ["buttons", "wake.lights", "wake.lights[].color_temp", "radio.stations", "calendar.feeds"]

    /// The file's items of list `list` (`buttons`): by index, each the rest of its keys
    /// (`buttons[0].topic` → `[0: ["topic": …]]`; a scalar item is under `""`).
    static func listItems(_ file: [String: String], _ list: String) -> [Int: [String: String]] {
        let prefix = list + "["
        var items: [Int: [String: String]] = [:]
        for (key, value) in file where key.hasPrefix(prefix) {
            let rest = key.dropFirst(prefix.count)
            guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]) else { continue }
            var field = rest[rest.index(after: close)...]
            if field.first == "." { field = field.dropFirst() }
            items[index, default: [:]][String(field)] = value
        }
        return items
    }

    /// `path` with each item index replaced by `[]` (`buttons[2]` → `buttons[]`).
    public static func listPattern(_ path: String) -> String {
        var pattern = "", inIndex = false
        for character in path {
            if character == "[" {
                inIndex = true
                pattern.append("[")
            } else if character == "]" {
                inIndex = false
                pattern.append("]")
            } else if !inIndex {
                pattern.append(character)
            }
        }
        return pattern
    }

    /// `buttons[N].*` of the file as buttons; with the file's values they are made of, for
    /// `check-config`. A button needs a topic (no wildcards, each once) and at least one action;
    /// a payload must be a JSON object. Keys a button does not have are returned as unknown.
    static func buttons(
        _ file: [String: String], fileName: String?
    ) throws(ConfigurationError) -> (buttons: [Configuration.Button], values: [ResolvedValue], unknown: [String]) {
        let source = fileName ?? "file"
        func fail(_ key: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(key: key, source: source, reason: reason)
        }
        let items = listItems(file, "buttons")
        var buttons: [Configuration.Button] = [], values: [ResolvedValue] = [], unknown: [String] = []
        for index in items.keys.sorted() {
            let item = items[index] ?? [:], key = "buttons[\(index)]"
            func value(_ field: String, _ text: String) {
                values.append(ResolvedValue(key: ConfigKey(path: "\(key).\(field)", kind: .text, defaultValue: nil, secret: false), value: text, source: source))
            }
            guard !(item.count == 1 && item[""] != nil) else { throw fail(key, "must be a mapping with topic and actions") }
            let topic = item["topic"] ?? ""
            if let reason = problem(with: topic, for: ConfigKey(path: "\(key).topic", kind: .topic, defaultValue: nil, secret: false)) {
                throw fail("\(key).topic", reason)
            }
            if let other = buttons.first(where: { $0.topic == topic }) { throw fail("\(key).topic", "\(other.key) listens to \(topic) already") }
            value("topic", topic)
            let member = item["member"] ?? ""
            value("member", member)
            // actions.NAME = verb, or actions.NAME.verb and actions.NAME.payload.
            var actions: [String: Configuration.ButtonAction] = [:]
            var fields: [String: [String: String]] = [:]
            var strays: [String] = []
            for (field, text) in item where field.hasPrefix("actions.") {
                let name = field.dropFirst("actions.".count)
                if let dot = name.firstIndex(of: ".") {
                    let part = String(name[name.index(after: dot)...])
                    guard part == "verb" || part == "payload" else {
                        strays.append(field)
                        continue
                    }
                    fields[String(name[..<dot]), default: [:]][part] = text
                } else {
                    fields[String(name), default: [:]][""] = text
                }
            }
            for (name, parts) in fields.sorted(by: { $0.key < $1.key }) {
                let actionKey = "\(key).actions.\(name)"
                let verb = (parts[""] ?? parts["verb"] ?? "").trimmingWhitespace()
                guard !verb.isEmpty else { throw fail(parts[""] == nil ? "\(actionKey).verb" : actionKey, "must name a verb (snooze, dismiss, noise/toggle, ...)") }
                let payload = (parts["payload"] ?? "").trimmingWhitespace()
                if !payload.isEmpty {
                    guard case .object? = try? JSONValue.parse(Array(payload.utf8)) else {
                        throw fail("\(actionKey).payload", "must be a JSON object, e.g. {\"sound\":\"rain\"}")
                    }
                }
                actions[name] = Configuration.ButtonAction(verb: verb, payload: payload)
                value("actions.\(name)", payload.isEmpty ? verb : "\(verb) \(payload)")
            }
            guard !actions.isEmpty else { throw fail("\(key).actions", "a button needs at least one action (e.g. single: snooze)") }
            unknown += (item.keys.filter { $0 != "topic" && $0 != "member" && !$0.hasPrefix("actions.") } + strays).sorted()
                .map { "\(key).\($0) (in \(fileName ?? "the file"))" }
            buttons.append(Configuration.Button(key: key, topic: topic, member: member, actions: actions))
        }
        return (buttons, values, unknown)
    }
}
