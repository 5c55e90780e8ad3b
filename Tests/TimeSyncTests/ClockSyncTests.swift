import CTimex
import Foundation
import Testing
import TimeSync

/// The kernel's clock state read as a value: `adjtimex`'s answer and flags.
@Suite("The system clock's synchronisation")
struct ClockSyncTests {
    @Test func aDisciplinedClockIsSynchronised() {
        let c = ClockSync(state: TIME_OK, status: STA_PLL, estimatedMicroseconds: 800, maximumMicroseconds: 12_000)
        #expect(c.synchronised)
        #expect(c.summary == "synchronised (estimated error 0.8 ms, at most 12 ms)")
    }

    /// A leap second announced is still a synchronised clock.
    @Test func aLeapSecondAheadIsSynchronised() {
        #expect(
            ClockSync(state: TIME_INS, status: STA_INS, estimatedMicroseconds: 0, maximumMicroseconds: 0).synchronised)
    }

    @Test(arguments: [(TIME_ERROR, Int32(0)), (TIME_OK, STA_UNSYNC), (TIME_ERROR, STA_UNSYNC)])
    func anUndisciplinedClockIsNot(state: Int32, status: Int32) {
        let c = ClockSync(
            state: state, status: status, estimatedMicroseconds: 16_000_000, maximumMicroseconds: 16_000_000)
        #expect(!c.synchronised)
        #expect(c.summary.hasPrefix("not synchronised (no time service keeps it: chrony or systemd-timesyncd"))
    }

    @Test func theTimeServicesAreToldByTheirRunTimeFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("clock-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/run/chrony", withIntermediateDirectories: true)
        #expect(ClockSync.services(root: root).isEmpty)
        _ = FileManager.default.createFile(atPath: root + "/run/chrony/chronyd.pid", contents: Data("42\n".utf8))
        try FileManager.default.createDirectory(
            atPath: root + "/run/systemd/timesync", withIntermediateDirectories: true)
        #expect(ClockSync.services(root: root) == ["chrony", "systemd-timesyncd"])
    }

    /// This machine's clock is read (whatever its state).
    @Test func theKernelAnswers() throws {
        let c = try #require(ClockSync.now())
        #expect(c.maximumError >= 0 && c.estimatedError >= 0)
    }
}
