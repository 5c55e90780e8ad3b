import Glibc

/// Changes in folders through one inotify descriptor: what is created, written, moved in or out,
/// deleted. A folder that is missing now is watched through its parent, so that it is seen to
/// appear. For a poll loop on one thread (the input devices', the playlist folders'): ``fd`` is
/// what to poll, ``drain()`` reads what came.
public final class FolderWatch {
    /// What to hear of, as inotify's mask.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Files and folders created, deleted, moved in or out, their attributes changed.
        public static let entries = Events(
            rawValue: UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM))
        /// A file written and closed, and the folder itself deleted.
        public static let writes = Events(rawValue: UInt32(IN_CLOSE_WRITE | IN_DELETE_SELF))
    }

    /// The descriptor to poll (`-1` when inotify could not be had: then only a rescan finds changes).
    public private(set) var fd: Int32
    private let events: Events
    private var watched: Set<String> = []

    public init(_ events: Events) {
        self.events = events
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Watches each of `folders` (a missing one through its parent), each once.
    public func watch(_ folders: [String], parentOfMissing: Bool = true) {
        guard fd >= 0 else { return }
        for folder in folders {
            var info = stat()
            let present = stat(folder, &info) == 0
            guard present || parentOfMissing else { continue }
            let target = present ? folder : Self.parent(of: folder)
            guard !watched.contains(target) else { continue }
            if inotify_add_watch(fd, target, events.rawValue) >= 0 { watched.insert(target) }
        }
    }

    /// Reads every event waiting; true when there was one.
    public func drain() -> Bool {
        guard fd >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 { any = true }
        return any
    }

    /// Waits up to `milliseconds` for an event (and reads them); true when one came.
    public func wait(milliseconds: Int32) -> Bool {
        guard fd >= 0 else {
            usleep(useconds_t(milliseconds) * 1000)
            return false
        }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, milliseconds) > 0 && drain()
    }

    /// Starts afresh on a new descriptor, every watch dropped (a folder came or went: its watch, or
    /// its parent's, moves). The old descriptor is closed here, once.
    public func renew() {
        if fd >= 0 { close(fd) }
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        watched = []
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
