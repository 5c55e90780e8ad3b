import Foundation
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

/// The first `limit` bytes of a file (all of a shorter one); `nil` when it cannot be read or is
/// empty.
public func readPrefix(_ path: String, limit: Int) -> [UInt8]? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: limit)).map { [UInt8]($0) }
}

/// The same as text (UTF-8, a bad byte replaced).
public func readText(_ path: String, limit: Int) -> String? {
    readPrefix(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
}
