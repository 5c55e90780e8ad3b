import CSystemd
import Glibc
import Synchronization

/// The kernel's messages of this boot, as the journal keeps them (`_TRANSPORT=kernel`): for a
/// service that may not read `/dev/kmsg` (`ProtectKernelLogs=`), but is in the `systemd-journal`
/// group. Each ``read()`` gives what came since the last.
public final class KernelJournal: Sendable {
    /// sd-journal's handle (not thread-safe: used under the lock only).
    private struct Handle: @unchecked Sendable {
        var journal: OpaquePointer?
        var opened = false
        var problem: String?
    }

    private let handle = Mutex(Handle())
    /// The journal's files read: the system's (`nil`), or those of one folder.
    public let directory: String?
    /// At most this many records a read: the rest come at the next.
    public static let perRead = 5000

    /// The system journal's kernel records, or those in the journal files of `directory` (a
    /// journal copied off a machine, or made by `systemd-journal-remote`).
    public init(directory: String? = nil) {
        self.directory = directory
    }

    deinit { handle.withLock { if let j = $0.journal { sd_journal_close(j) } } }

    /// The kernel records since the last read, each its text and its time (microseconds of the
    /// kernel's monotonic clock); and why the journal cannot be read, if it cannot.
    public func read() -> (records: [(micros: UInt64, text: String)], problem: String?) {
        handle.withLock { h in
            if !h.opened { Self.open(&h, directory: directory) }
            guard let j = h.journal else { return ([], h.problem) }
            // What changed in the files since the last read (records appended, a file rotated
            // or new), as the inotify watch made at the opening saw it.
            _ = sd_journal_process(j)
            var out: [(micros: UInt64, text: String)] = []
            while out.count < Self.perRead, sd_journal_next(j) > 0 {
                var data: UnsafeRawPointer?
                var length = 0
                guard sd_journal_get_data(j, "MESSAGE", &data, &length) >= 0, let data else { continue }
                let field = UnsafeRawBufferPointer(start: data, count: length)
                let text = String(decoding: field.dropFirst("MESSAGE=".count), as: UTF8.self)
                var micros: UInt64 = 0
                var boot = sd_id128_t()
                _ = sd_journal_get_monotonic_usec(j, &micros, &boot)
                out.append((micros, text))
            }
            return (out, h.problem)
        }
    }

    private static func open(_ h: inout Handle, directory: String?) {
        h.opened = true
        var j: OpaquePointer?
        let r =
            directory.map { sd_journal_open_directory(&j, $0, 0) }
            ?? sd_journal_open(&j, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM))
        guard r >= 0, let j else {
            h.problem =
                (directory.map { "the journal in \($0)" } ?? "the journal") + " cannot be opened: "
                + String(cString: strerror(-r))
            return
        }
        var boot = sd_id128_t()
        var text = [CChar](repeating: 0, count: 33)  // 32 hexadecimal digits and a NUL
        guard sd_id128_get_boot(&boot) >= 0 else {
            sd_journal_close(j)
            h.problem = "this boot's id cannot be read"
            return
        }
        sd_id128_to_string(boot, &text)
        _ = sd_journal_add_match(j, "_TRANSPORT=kernel", 0)
        let id = String(decoding: text.prefix(32).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = sd_journal_add_match(j, "_BOOT_ID=" + id, 0)
        _ = sd_journal_seek_head(j)
        // Watches the files (inotify), so that each read sees records written since the last,
        // and the files journald starts when it rotates.
        _ = sd_journal_get_fd(j)
        // No system journal's files to read: not in the group that may read them.
        if directory == nil, sd_journal_has_runtime_files(j) <= 0, sd_journal_has_persistent_files(j) <= 0 {
            h.problem = "the system journal cannot be read (its files are the systemd-journal group's)"
        }
        h.journal = j
    }
}
