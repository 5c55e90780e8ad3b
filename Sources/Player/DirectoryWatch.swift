import Foundation
import Synchronization

/// Changes in folders (inotify): a file created, written and closed, moved in or out, deleted,
/// and a folder that appears (a USB stick mounted) or goes. Watched on a thread of its own; a
/// folder missing now is looked for again every second.
final class DirectoryWatch: Sendable {
    let changes: AsyncStream<Void>
    private let stopped = Flag()

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    init(_ directories: [String]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        let stopped = stopped
        let thread = Thread {
            var fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            defer {
                if fd >= 0 { close(fd) }
                continuation.finish()
            }
            var watched: [Int32: String] = [:]
            var present = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
            let mask = UInt32(
                IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_ATTRIB)
            while !stopped.value.withLock({ $0 }) {
                // (Re)watch each folder, and the parent of one that is missing (to see it appear).
                for dir in directories {
                    let target =
                        FileManager.default.fileExists(atPath: dir) ? dir : (dir as NSString).deletingLastPathComponent
                    if fd >= 0, !watched.values.contains(target) {
                        let wd = inotify_add_watch(fd, target, mask)
                        if wd >= 0 { watched[wd] = target }
                    }
                }
                let now = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
                if now != present {
                    // The watches move to the folders (or their parents) at the next round, on a
                    // new descriptor (the old one is closed once, here, and never again).
                    present = now
                    watched = [:]
                    if fd >= 0 { close(fd) }
                    fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
                    continuation.yield()
                    continue
                }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 1000) > 0 {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    var any = false
                    while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 { any = true }
                    if any { continuation.yield() }
                }
            }
        }
        thread.name = "upright-folders"
        thread.start()
    }

    func stop() { stopped.value.withLock { $0 = true } }
    deinit { stop() }
}
