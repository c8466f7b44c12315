import FoundationEssentials
import NoiseClockCore
import NoiseClockSystem
import NoiseClockYAML
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

    /// The credentials systemd passed (`$CREDENTIALS_DIRECTORY`, set only for a unit with
    /// `LoadCredential=`), by the key each replaces: the files there that the node knows by name.
    public static func credentials(
        environment: [String: String], fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> [String: String] {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], directory.hasPrefix("/") else { return [:] }
        var found: [String: String] = [:]
        for (name, key) in ConfigurationSchema.credentials where fileExists("\(directory)/\(name)") {
            found[key] = "\(directory)/\(name)"
        }
        return found
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
            file: values, fileName: file, environment: environment, hostname: hostname,
            credentials: credentials(environment: environment))
        return Loaded(resolved: resolved, file: file)
    }

    /// The file's scalars by dotted key path. A list or a map where a value belongs is an error
    /// naming its key; an empty value (`username:`) is the empty string. Read with libyaml's
    /// event parser: the file is a tree of mappings, so no document model is built.
    public static func flatten(yaml: String, fileName: String) throws(ConfigurationError) -> [String: String] {
        try YAMLFlattener.flatten(yaml, fileName: fileName)
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
        if configuration.face.enabled { _ = try faceToken(for: configuration.face) }
    }

    /// The face's access token: the first line of `face.token_file` without surrounding white
    /// space; nil when no file is set. An unreadable or empty file is an error naming the key.
    public static func faceToken(for face: Configuration.Face) throws(ConfigurationError) -> String? {
        guard !face.tokenFile.isEmpty else { return nil }
        guard let bytes = FileBytes.read(face.tokenFile) else {
            throw ConfigurationError(key: "face.token_file", source: "config", reason: "cannot read \(face.tokenFile)")
        }
        let token = String(decoding: bytes, as: UTF8.self).prefix { !$0.isNewline }.trimmingWhitespaceCharacters()
        guard token.count >= 16 else {
            throw ConfigurationError(
                key: "face.token_file", source: "config",
                reason: "the token in \(face.tokenFile) is \(token.isEmpty ? "empty" : "too short"); use at least 16 characters "
                    + "(e.g. tr -dc A-Za-z0-9 < /dev/urandom | head -c 32 > \(face.tokenFile))")
        }
        // It travels in a cookie and a query string: only characters that need no escaping in either.
        guard token.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._~".unicodeScalars.contains($0)) })
        else {
            throw ConfigurationError(
                key: "face.token_file", source: "config",
                reason: "the token in \(face.tokenFile) may hold only A-Z, a-z, 0-9, '-', '.', '_' and '~'")
        }
        return token
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

extension Substring {
    fileprivate func trimmingWhitespaceCharacters() -> String { String(self).trimmingWhitespace() }
}

public enum Host {
    /// This machine's host name.
    public static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "noiseclock" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
