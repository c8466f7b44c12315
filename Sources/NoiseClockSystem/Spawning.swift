import CTimerFD

#if canImport(Glibc)
import Glibc
#endif

/// Descriptor hygiene for the children the node spawns (the user's screen commands): calls Swift's
/// Glibc module does not declare.
public enum Spawning {
    /// A pipe, both ends close-on-exec from the start; nil with `errno` set on failure.
    public static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard ends.withUnsafeMutableBufferPointer({ nc_pipe_cloexec($0.baseAddress) }) == 0 else { return nil }
        return (ends[0], ends[1])
    }

    /// Makes the child close every descriptor from 3 up before it runs its program: it gets its
    /// stdin, stdout and stderr and nothing of the node's (the broker's socket, the sound card,
    /// a store file being written), even where a library opened one without close-on-exec. A child
    /// left running in the background would otherwise keep the broker's connection open after the
    /// node has gone, and hold back its last will. 0, or an error number.
    /// `from`: the first descriptor closed (a child given more than stdin, stdout and stderr
    /// keeps those below it).
    public static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, from first: Int32 = 3) -> Int32 {
        nc_spawn_close_from(&actions, first)
    }
}
