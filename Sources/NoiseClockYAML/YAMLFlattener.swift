import CYAML
import NoiseClockCore

/// The configuration file's YAML, read with libyaml's event parser: the only code that sees a
/// libyaml type. The file is a tree of mappings, so no document model is built; a list or an
/// alias is refused, naming its key.
public struct YAMLFlattener {
    let fileName: String
    var values: [String: String] = [:]
    /// The open mappings, innermost last: the path of each, and the key read that awaits its value.
    var open: [(path: String, key: String?)] = []
    var documents = 0

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
        guard let top = open.last, let key = top.key else { return open.last?.path ?? "" }
        return top.path.isEmpty ? key : "\(top.path).\(key)"
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
                open.append(("", nil))
            } else {
                guard open[open.count - 1].key != nil else { throw error(open[open.count - 1].path, "keys must be plain names") }
                open.append((valuePath, nil))
            }
        case YAML_MAPPING_END_EVENT:
            open.removeLast()
            if !open.isEmpty { open[open.count - 1].key = nil }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            guard !open.isEmpty else { throw error("", "the file must be a mapping of keys") }
            if open[open.count - 1].key == nil {
                let path = open[open.count - 1].path
                let full = path.isEmpty ? text : "\(path).\(text)"
                guard values[full] == nil, !values.keys.contains(where: { $0.hasPrefix(full + ".") }) else {
                    throw error(full, "the key appears twice")
                }
                open[open.count - 1].key = text
            } else {
                let isNull = scalar.style == YAML_PLAIN_SCALAR_STYLE && ["", "~", "null", "Null", "NULL"].contains(text)
                values[valuePath] = isNull ? "" : text
                open[open.count - 1].key = nil
            }
        case YAML_SEQUENCE_START_EVENT:
            if let top = open.last, top.key == nil { throw error(top.path, "keys must be plain names") }
            throw error(valuePath, "a list is not accepted here")
        case YAML_ALIAS_EVENT:
            throw error(valuePath, "YAML aliases are not accepted")
        default:
            break
        }
    }
}
