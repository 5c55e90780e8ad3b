import Foundation
import Synchronization

/// libmpv 0.35's `vo_wlshm` frees only the buffers the compositor has handed back when its window
/// closes: the ones still on screen stay mapped for the life of the process (mpv 23d39a60 fixes
/// it upstream). A compositor that dies takes its window with it, so every loss left a window's
/// worth of pictures behind (7 MB at 1280×720).
///
/// Every mpv core of the process is counted here. When the last one is destroyed, no mpv code is
/// left that could use such a buffer, and the mappings of mpv's shared-memory files are unmapped;
/// a core is created only under the same lock, never during the sweep.
enum MPVCores {
    private static let live = Mutex(0)
    /// Buffers unmapped so far, and their bytes.
    private static let swept = Mutex((count: 0, bytes: 0))

    /// Runs `create` (which makes a core) counted as one more live core.
    static func creating<R, E: Error>(_ create: () throws(E) -> R) throws(E) -> R {
        try live.withLock { (n: inout Int) throws(E) -> R in
            let r = try create()
            n += 1
            return r
        }
    }

    /// A core was destroyed; the last one's leftovers go.
    static func destroyed() {
        live.withLock { n in
            n -= 1
            if n == 0 { sweep() }
        }
    }

    /// What the sweeps have unmapped.
    static var sweptSoFar: (count: Int, bytes: Int) { swept.withLock { $0 } }

    /// Unmaps every mapping of a file mpv made for pictures (`memfd:mpv`): called with no core alive.
    private static func sweep() {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return }
        for (start, end) in bufferMappings(in: maps) {
            guard let address = UnsafeMutableRawPointer(bitPattern: start), munmap(address, end - start) == 0
            else { continue }
            swept.withLock {
                $0.count += 1; $0.bytes += end - start
            }
        }
    }

    /// The address ranges of mpv's picture files in a `/proc/PID/maps` text.
    static func bufferMappings(in maps: String) -> [(start: Int, end: Int)] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }).hasPrefix("/memfd:mpv ") else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = Int(range[0], radix: 16), let end = Int(range[1], radix: 16),
                end > start
            else { return nil }
            return (start, end)
        }
    }
}
