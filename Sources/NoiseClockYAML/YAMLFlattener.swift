import CYAML
import NoiseClockCore

/// The configuration file's YAML, read with libyaml's event parser: the only code that sees a
/// libyaml type. The file is a tree of mappings, so no document model is built. A list is taken
/// only where the schema has one (`ConfigurationSchema.listPaths`, e.g. `buttons`); its items are
/// flattened under their index (`buttons[0].topic`). A list anywhere else, or an alias, is refused,
/// naming its key.
public struct YAMLFlattener {
    let fileName: String
    var values: [String: String] = [:]
    /// The open mappings and lists, innermost last.
    var open: [Level] = []
    var documents = 0

    /// An open mapping (its path, and the key read that awaits its value) or list (its path, and
    /// the index of its next item).
    struct Level {
        var path: String
        var key: String?
        var index: Int?

        static func mapping(_ path: String) -> Level { Level(path: path, key: nil, index: nil) }
        static func list(_ path: String) -> Level { Level(path: path, key: nil, index: 0) }
    }

    init(fileName: String) {
        self.fileName = fileName
    }

    /// The scalars of `yaml` by dotted key path; throws naming the key (or `config`) at fault.
    public static func flatten(_ yaml: String, fileName: String) throws(ConfigurationError) -> [String: String] {
        var reader = YAMLFlattener(fileName: fileName)
        let bytes = Array(yaml.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in reader.read(buffer) }
        return try result.get()
    }

    func error(_ key: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(key: key.isEmpty ? "config" : key, source: fileName, reason: reason)
    }

    /// The path a value at this point belongs to ("" at the top).
    var valuePath: String {
        guard let top = open.last else { return "" }
        if let index = top.index { return "\(top.path)[\(index)]" }
        guard let key = top.key else { return top.path }
        return top.path.isEmpty ? key : "\(top.path).\(key)"
    }

    /// After a value of the innermost level: a mapping awaits its next key, a list its next item.
    mutating func valueEnded() {
        guard !open.isEmpty else { return }
        if let index = open[open.count - 1].index {
            open[open.count - 1].index = index + 1
        } else {
            open[open.count - 1].key = nil
        }
    }

    mutating func read(_ text: UnsafeBufferPointer<UInt8>) -> Result<[String: String], ConfigurationError> {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return .failure(error("", "cannot start the YAML parser")) }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, text.baseAddress, text.count)
        // The whole text is parsed even after a problem with its content, so that a syntax error
        // anywhere is the one reported.
        var problem: ConfigurationError?
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                let reason = parser.problem.map { String(cString: $0) } ?? "unreadable"
                let mark = parser.problem_mark
                return .failure(error("", "not valid YAML: \(reason) at line \(mark.line + 1), column \(mark.column + 1)"))
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { return problem.map { .failure($0) } ?? .success(values) }
            guard problem == nil else { continue }
            do throws(ConfigurationError) {
                try handle(event)
            } catch {
                problem = error
            }
        }
    }

    mutating func handle(_ event: yaml_event_t) throws(ConfigurationError) {
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            guard documents == 1 else { throw error("", "the file must hold one YAML document") }
        case YAML_MAPPING_START_EVENT:
            if open.isEmpty {
                open.append(.mapping(""))
            } else {
                let top = open[open.count - 1]
                guard top.key != nil || top.index != nil else { throw error(top.path, "keys must be plain names") }
                open.append(.mapping(valuePath))
            }
        case YAML_MAPPING_END_EVENT:
            open.removeLast()
            valueEnded()
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            guard !open.isEmpty else { throw error("", "the file must be a mapping of keys") }
            let top = open[open.count - 1]
            if top.index == nil, top.key == nil {
                let full = top.path.isEmpty ? text : "\(top.path).\(text)"
                guard values[full] == nil, !values.keys.contains(where: { $0.hasPrefix(full + ".") || $0.hasPrefix(full + "[") }) else {
                    throw error(full, "the key appears twice")
                }
                open[open.count - 1].key = text
            } else {
                let isNull = scalar.style == YAML_PLAIN_SCALAR_STYLE && ["", "~", "null", "Null", "NULL"].contains(text)
                values[valuePath] = isNull ? "" : text
                valueEnded()
            }
        case YAML_SEQUENCE_START_EVENT:
            guard let top = open.last else { throw error("", "the file must be a mapping of keys, not a list") }
            if top.index == nil, top.key == nil { throw error(top.path, "keys must be plain names") }
            let path = valuePath
            guard top.index == nil, ConfigurationSchema.listPaths.contains(ConfigurationSchema.listPattern(path)) else {
                throw error(path, "a list is not accepted here")
            }
            open.append(.list(path))
        case YAML_SEQUENCE_END_EVENT:
            open.removeLast()
            valueEnded()
        case YAML_ALIAS_EVENT:
            throw error(valuePath, "YAML aliases are not accepted")
        default:
            break
        }
    }
}
