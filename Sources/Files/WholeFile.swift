public import Glibc

/// A file written whole or not at all: `text` into `temporary` (beside it), synced, then renamed
/// over `path`. Readers see the old file or the new one, never a part.
public enum WholeFile {
    /// Why it could not be written: the temporary could not be made, or written and renamed
    /// (the temporary is then gone). Each with its `errno`.
    public enum Failure: Error, Sendable, Hashable {
        case create(Int32)
        case write(Int32)
    }

    public static func write(_ text: String, to path: String, temporary: String, mode: mode_t) -> Failure? {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { return .create(errno) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard n == bytes.count, synced, rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            return .write(e)
        }
        return nil
    }
}
