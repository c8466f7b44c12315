import CYAML
import FoundationEssentials
import NoiseClockCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds, reads and resolves the configuration (SPEC §1), and checks the files it names.
public enum ConfigurationLoader {
    public struct Loaded: Sendable {
        public var resolved: ResolvedConfiguration
        /// The file read, or nil when only defaults and the environment apply.
        public var file: String?
        public var configuration: Configuration { resolved.configuration }
    }

    /// `--config`, else `$NOISECLOCK_CONFIG`, else /etc/noiseclock/noiseclock.yaml, else
    /// config/noiseclock.yaml under the working directory, else none (built-in defaults).
    public static func locate(
        explicit: String?, environment: [String: String], workingDirectory: String,
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String? {
        if let explicit { return explicit }
        if let fromEnvironment = environment["NOISECLOCK_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        for candidate in ["/etc/noiseclock/noiseclock.yaml", "\(workingDirectory)/config/noiseclock.yaml"]
        where fileExists(candidate) {
            return candidate
        }
        return nil
    }

    public static func load(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: String = FileManager.default.currentDirectoryPath, hostname: String = Host.name
    ) throws(ConfigurationError) -> Loaded {
        let file = locate(explicit: explicit, environment: environment, workingDirectory: workingDirectory)
        var values: [String: String] = [:]
        if let file {
            // Read to the end, not by its size, so that /dev/null or a pipe reads as an empty file.
            guard let bytes = FileBytes.read(file) else {
                throw ConfigurationError(key: "config", source: file, reason: "cannot read the configuration file")
            }
            values = try flatten(yaml: String(decoding: bytes, as: UTF8.self), fileName: file)
        }
        let resolved = try ConfigurationSchema.resolve(
            file: values, fileName: file, environment: environment, hostname: hostname)
        return Loaded(resolved: resolved, file: file)
    }

    /// The file's scalars by dotted key path. A list or a map where a value belongs is an error
    /// naming its key; an empty value (`username:`) is the empty string. Read with libyaml's
    /// event parser: the file is a tree of mappings, so no document model is built.
    public static func flatten(yaml: String, fileName: String) throws(ConfigurationError) -> [String: String] {
        var reader = YAMLFlattener(fileName: fileName)
        let bytes = Array(yaml.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in reader.read(buffer) }
        return try result.get()
    }

    /// Checks that the files the configuration names can be read, naming the key when one cannot.
    public static func checkFiles(_ configuration: Configuration, sources: [ResolvedValue]) throws(ConfigurationError) {
        let tls = configuration.mqtt.tls
        var named: [(String, String)] = [("mqtt.password_file", configuration.mqtt.passwordFile)]
        if tls.enabled {
            named += [("mqtt.tls.ca_file", tls.caFile), ("mqtt.tls.cert_file", tls.certFile), ("mqtt.tls.key_file", tls.keyFile)]
        }
        for (key, path) in named where !path.isEmpty && !FileManager.default.isReadableFile(atPath: path) {
            let source = sources.first { $0.key.path == key }?.source ?? "default"
            throw ConfigurationError(key: key, source: source, reason: "cannot read \(path)")
        }
    }

    /// The password: the first line of `mqtt.password_file` when it is set, else `mqtt.password`.
    public static func password(for mqtt: Configuration.MQTT) throws(ConfigurationError) -> String? {
        if !mqtt.passwordFile.isEmpty {
            guard let data = FileManager.default.contents(atPath: mqtt.passwordFile) else {
                throw ConfigurationError(key: "mqtt.password_file", source: "config", reason: "cannot read \(mqtt.passwordFile)")
            }
            let text = String(decoding: data, as: UTF8.self)
            return String(text.prefix { !$0.isNewline })
        }
        return mqtt.password.isEmpty ? nil : mqtt.password
    }
}

public enum Host {
    /// This machine's host name.
    public static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "noiseclock" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Turns libyaml's events into dotted key paths and their scalar values.
private struct YAMLFlattener {
    let fileName: String
    var values: [String: String] = [:]
    /// The open mappings, innermost last: the path of each, and the key read that awaits its value.
    var open: [(path: String, key: String?)] = []
    var documents = 0

    init(fileName: String) {
        self.fileName = fileName
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
