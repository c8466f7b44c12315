#if canImport(Glibc)
import Glibc
#endif

/// The running program's own file.
public enum Executable {
    /// Its absolute path, from `/proc/self/exe`: `argv[0]` is only the name typed when the program
    /// was found through `$PATH` (`noiseclock sounds`), which says nothing of where it lives.
    /// `argv[0]` is the fallback where /proc is not mounted.
    public static var path: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first ?? "" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
