import Foundation
import NoiseClockCore
import Yams

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
            // FileHandle, not Data(contentsOf:), so that /dev/null or a pipe reads as an empty file.
            let unreadable = ConfigurationError(key: "config", source: file, reason: "cannot read the configuration file")
            guard let handle = FileHandle(forReadingAtPath: file) else { throw unreadable }
            let data: Data
            do {
                data = try handle.readToEnd() ?? Data()
            } catch {
                throw unreadable
            }
            values = try flatten(yaml: String(decoding: data, as: UTF8.self), fileName: file)
        }
        let resolved = try ConfigurationSchema.resolve(
            file: values, fileName: file, environment: environment, hostname: hostname)
        return Loaded(resolved: resolved, file: file)
    }

    /// The file's scalars by dotted key path. A list or a map where a value belongs is an error
    /// naming its key; an empty value (`username:`) is the empty string.
    public static func flatten(yaml: String, fileName: String) throws(ConfigurationError) -> [String: String] {
        let root: Yams.Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigurationError(key: "config", source: fileName, reason: "not valid YAML: \(error)")
        }
        guard let root else { return [:] }
        var values: [String: String] = [:]
        try flatten(root, prefix: "", fileName: fileName, into: &values)
        return values
    }

    private static func flatten(_ node: Yams.Node, prefix: String, fileName: String, into values: inout [String: String])
        throws(ConfigurationError)
    {
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard let name = key.scalar?.string else {
                    throw ConfigurationError(key: prefix.isEmpty ? "config" : prefix, source: fileName, reason: "keys must be plain names")
                }
                let path = prefix.isEmpty ? name : "\(prefix).\(name)"
                try flatten(value, prefix: path, fileName: fileName, into: &values)
            }
        case .scalar(let scalar):
            guard !prefix.isEmpty else {
                throw ConfigurationError(key: "config", source: fileName, reason: "the file must be a mapping of keys")
            }
            let isNull = scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
            values[prefix] = isNull ? "" : scalar.string
        case .sequence:
            throw ConfigurationError(key: prefix.isEmpty ? "config" : prefix, source: fileName, reason: "a list is not accepted here")
        case .alias:
            throw ConfigurationError(key: prefix.isEmpty ? "config" : prefix, source: fileName, reason: "YAML aliases are not accepted")
        }
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
