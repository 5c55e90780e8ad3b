import Blocking
import Files
import Foundation
import Synchronization

/// Changes in folders (``FolderWatch``): a file created, written and closed, moved in or out,
/// deleted, and a folder that appears (a USB stick mounted) or goes. Watched on a thread of its
/// own; a folder missing now is looked for again every second. Says "changed" once when its
/// watches first stand, for what changed before; then once a burst at most each second.
final class DirectoryWatch: Sendable {
    private let stopped = Flag()

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// Watches `directories` until ``stop()``; `changed` is called on the watch's thread.
    init(_ directories: [String], changed: @escaping @Sendable () -> Void) {
        let stopped = stopped
        Blocking.thread(named: "upright-folders") {
            let watch = FolderWatch([.entries, .writes])
            var present = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
            // What changed between the scan that asked for this watch and the watch in place (a
            // folder moved in meanwhile) has no event: one look once the watches stand.
            watch.watch(directories)
            changed()
            while !stopped.value.withLock({ $0 }) {
                watch.watch(directories)
                let now = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
                if now != present {
                    // The watches move to the folders (or their parents) at the next round.
                    present = now
                    watch.renew()
                    changed()
                    continue
                }
                if watch.wait(milliseconds: 1000) { changed() }
            }
        }
    }

    func stop() { stopped.value.withLock { $0 = true } }
    deinit { stop() }
}
