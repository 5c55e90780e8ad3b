import Foundation
import Health
import Systemd
import Testing

/// The kernel's records as the journal keeps them, read by sd-journal from real journal files
/// (written by `systemd-journal-remote` from its export format): this boot's kernel records only,
/// each counted once, and those written after the first read too, in the file read or a new one.
@Suite("The kernel log from the journal")
struct KernelJournalTests {
    static let writer = "/lib/systemd/systemd-journal-remote"

    /// Appends `records` (text, the kernel's clock in microseconds, the boot, the transport) to
    /// `file`, a journal.
    static func append(_ records: [(String, UInt64, String, String)], to file: String) throws {
        let now = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let export = records.map { text, micros, boot, transport in
            "__REALTIME_TIMESTAMP=\(now + micros)\n__MONOTONIC_TIMESTAMP=\(micros)\n_BOOT_ID=\(boot)\n"
                + "_TRANSPORT=\(transport)\n_HOSTNAME=kiosk\nMESSAGE=\(text)\n\n"
        }.joined()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: writer)
        p.arguments = ["--output=" + file, "--split-mode=none", "-"]
        let input = Pipe()
        p.standardInput = input
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data(export.utf8))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "systemd-journal-remote")
    }

    @Test func thisBootsKernelStorageErrorsAreCountedOnceEachAsTheyCome() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.writer),
            "systemd-journal-remote is needed (scripts/install-deps.sh installs it)")
        let dir = NSTemporaryDirectory() + "kernel-journal-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "")
        let other = String(repeating: "1", count: 32)
        let file = dir + "/system.journal"
        try Self.append(
            [
                ("usb 1-1: new high-speed USB device number 2", 1_000_000, boot, "kernel"),
                ("mmc0: error -110 whilst initialising SD card", 2_000_000, boot, "kernel"),
                // Not this boot's, and not the kernel's: neither counts.
                ("blk_update_request: I/O error, dev sda, sector 8", 3_000_000, other, "kernel"),
                ("blk_update_request: I/O error, dev sdb, sector 8", 4_000_000, boot, "stdout"),
            ], to: file)
        let journal = KernelJournal(directory: dir)
        let log = KernelLog(root: "/nonexistent")
        var r = log.read(journal: journal.read)
        #expect(r.problem == nil && r.count == 1 && r.errors.map(\.device) == ["mmc0"], "\(r)")
        #expect(r.errors.first?.micros == 2_000_000)
        // Written after the first read: read on from where it stopped.
        try Self.append(
            [("EXT4-fs error (device mmcblk0p2): ext4_find_entry:1463", 5_000_000, boot, "kernel")], to: file)
        r = log.read(journal: journal.read)
        #expect(r.count == 2 && r.errors.map(\.device) == ["mmc0", "mmcblk0p2"], "\(r)")
        #expect(log.read(journal: journal.read).count == 2, "nothing counted twice")
        // A new file, as journald starts one when it rotates: its records come too.
        try Self.append(
            [("blk_update_request: I/O error, dev mmcblk0, sector 1234", 6_000_000, boot, "kernel")],
            to: dir + "/system@rotated.journal")
        r = log.read(journal: journal.read)
        #expect(r.count == 3 && r.errors.last?.device == "mmcblk0", "\(r)")
        // A folder with no journal: said, not a crash.
        let missing = KernelJournal(directory: dir + "/none").read()
        #expect(missing.records.isEmpty && missing.problem?.contains("cannot be opened") == true, "\(missing)")
    }
}
