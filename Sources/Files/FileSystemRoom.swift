import Glibc

/// The room of the file system that holds a path, as an unprivileged writer has it (`statvfs`:
/// the blocks free to such a writer, not those kept for root).
public struct FileSystemRoom: Sendable, Hashable {
    public var freeBytes: Int64
    public var totalBytes: Int64

    /// The file system holding `path`; `nil` where there is none (no such path).
    public init?(at path: String) {
        var s = statvfs()
        guard !path.isEmpty, statvfs(path, &s) == 0 else { return nil }
        freeBytes = Int64(s.f_bavail) * Int64(s.f_frsize)
        totalBytes = Int64(s.f_blocks) * Int64(s.f_frsize)
    }
}
