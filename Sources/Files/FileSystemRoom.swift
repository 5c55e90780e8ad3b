import Glibc

/// The room of the file system that holds a path, as an unprivileged writer has it (`statvfs`:
/// the blocks free to such a writer, not those kept for root).
public struct FileSystemRoom: Sendable, Hashable {
    public var freeBytes: Int64
    public var totalBytes: Int64

    /// The file system holding `path`, or the one that will hold it once it is made (that of its
    /// nearest folder there is: a cache folder not made yet has the room of its parent's file
    /// system); `nil` for an empty or relative path, or one that cannot be looked at (no search
    /// permission on the way).
    public init?(at path: String) {
        guard path.hasPrefix("/") else { return nil }
        var s = statvfs()
        var at = path
        while statvfs(at, &s) != 0 {
            guard errno == ENOENT || errno == ENOTDIR, at != "/" else { return nil }
            let parent = at.split(separator: "/").dropLast().joined(separator: "/")
            at = "/" + parent
        }
        freeBytes = Int64(s.f_bavail) * Int64(s.f_frsize)
        totalBytes = Int64(s.f_blocks) * Int64(s.f_frsize)
    }
}
