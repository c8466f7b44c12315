import Foundation
import PackagePlugin

/// Writes `Version.swift` (`enum BuildVersion { static let text = "…" }`) from the checkout's
/// `VERSION` file, so the version lives in one place: the binary's `--version` and `B/status`,
/// and the Debian package (`make deb` reads the same file). Runs again whenever `VERSION` changes.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let version = context.package.directoryURL.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "Version.swift")
        // A Debian version's characters only; anything else fails the build, naming the file.
        let script = #"""
            v=$(tr -d ' \n' < "$1") || exit 1
            case "$v" in ''|*[!0-9A-Za-z.+~-]*) echo "$1: not a version: '$v'" >&2; exit 1;; esac
            printf '// Generated from VERSION by the VersionStamp plugin.\nenum BuildVersion {\n    static let text = "%s"\n}\n' "$v" > "$2"
            """#
        return [
            .buildCommand(
                displayName: "Stamping the version from VERSION", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "version-stamp", version.path, output.path], inputFiles: [version], outputFiles: [output]),
        ]
    }
}
