import Foundation
import Synchronization

/// The kernel log's storage errors, read as they come: `/dev/kmsg` under `root`, kept open and
/// read to its end at each ``read(journal:)`` (a fake tree's file the same way). Where it cannot
/// be opened (a service with `ProtectKernelLogs=`, or one without `CAP_SYSLOG` where
/// `kernel.dmesg_restrict` is 1), the kernel's records come from the journal instead, when one is
/// given. The errors since boot are counted, the newest ``kept`` kept.
public final class KernelLog: Sendable {
    private struct State {
        var descriptor: Int32 = -1
        var opened = false
        var pending: [UInt8] = []
        var errors: [StorageError] = []
        var count = 0
        var problem: String?
    }

    public let path: String
    private let state = Mutex(State())
    /// The newest storage errors kept.
    public static let kept = 10

    public init(root: String = "/") {
        path = (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/dev/kmsg"
    }

    deinit { state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } } }

    /// The kernel's records since the last call (each its time, in microseconds of the kernel's
    /// clock, and its text), and why they cannot be read.
    public typealias Journal = @Sendable () -> (records: [(micros: UInt64, text: String)], problem: String?)

    /// Reads what the log has gained, and returns the storage errors since boot: the newest
    /// ``kept``, how many in all, and why the log cannot be read (`nil` when it can).
    @discardableResult
    public func read(journal: Journal? = nil) -> (errors: [StorageError], count: Int, problem: String?) {
        state.withLock { s in
            if !s.opened {
                s.opened = true
                s.descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                if s.descriptor < 0 {
                    let why = String(cString: strerror(errno))
                    let hint = errno == EPERM || errno == EACCES ? " (kernel.dmesg_restrict: it needs CAP_SYSLOG)" : ""
                    s.problem = errno == ENOENT ? nil : "the kernel log \(path) cannot be read: \(why)\(hint)"
                }
            }
            if s.descriptor >= 0 {
                Self.drain(&s)
            } else if let journal {
                let (records, problem) = journal()
                s.problem = problem
                for r in records { Self.count(StorageErrors.parse(text: r.text, micros: r.micros), in: &s) }
            }
            return (s.errors, s.count, s.problem)
        }
    }

    private static func count(_ e: StorageError?, in s: inout State) {
        guard let e else { return }
        s.count += 1
        s.errors = Array((s.errors + [e]).suffix(kept))
    }

    /// Every record there now: `/dev/kmsg` gives one a read (`EAGAIN` at the end, `EPIPE` when
    /// records were overwritten before they were read); a file gives lines.
    private static func drain(_ s: inout State) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        for _ in 0..<10_000 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(s.descriptor, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR || errno == EPIPE { continue }
            guard n > 0 else { break }
            s.pending += buffer[0..<n]
            while let end = s.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: s.pending[..<end], as: UTF8.self)
                s.pending.removeSubrange(...end)
                // Lines that begin with a space are a record's dictionary (`SUBSYSTEM=…`).
                if !line.hasPrefix(" ") { count(StorageErrors.parse(line), in: &s) }
            }
            if s.pending.count > 65_536 { s.pending = [] }  // no line that long: not a log
        }
    }
}

extension StorageErrors {
    /// The storage errors of the last `seconds` before `now` (microseconds since boot, as the
    /// kernel stamps its records), as faults: each in words, with how long ago.
    public static func recent(_ errors: [StorageError], now: UInt64, seconds: Double = 600) -> [String] {
        errors.filter { now >= $0.micros && Double(now - $0.micros) / 1e6 <= seconds }.map {
            let ago = Int((Double(now - $0.micros) / 1e6).rounded())
            return "a storage error on \($0.device) \(ago) s ago: \($0.message)"
        }
    }

    /// The kernel log's clock now, in microseconds: it stamps its records with its monotonic
    /// clock (a suspend not counted), as `CLOCK_MONOTONIC` runs.
    public static func bootMicros() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
    }
}
