import Blocking
import Files
import Foundation
import Synchronization

/// Changes in folders (``FolderWatch``): a file created, written and closed, moved in or out,
/// deleted, and a folder that appears (a USB stick mounted) or goes. Watched on a thread of its
/// own; a folder missing now is looked for again every second. Says "changed" once when its
/// watches first stand, for what changed before.
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
        Blocking.thread(named: "upright-folders") {
            let watch = FolderWatch([.entries, .writes])
            defer { continuation.finish() }
            var present = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
            // What changed between the scan that asked for this watch and the watch in place (a
            // folder moved in meanwhile) has no event: one look once the watches stand.
            watch.watch(directories)
            continuation.yield()
            while !stopped.value.withLock({ $0 }) {
                watch.watch(directories)
                let now = Set(directories.filter { FileManager.default.fileExists(atPath: $0) })
                if now != present {
                    // The watches move to the folders (or their parents) at the next round.
                    present = now
                    watch.renew()
                    continuation.yield()
                    continue
                }
                if watch.wait(milliseconds: 1000) { continuation.yield() }
            }
        }
    }

    func stop() { stopped.value.withLock { $0 = true } }
    deinit { stop() }
}
