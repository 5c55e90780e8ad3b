import Session
import Testing

@Suite("Repeated log lines")
struct RepeatedLinesTests {
    /// The case: nothing to play, the same line every 10 s for two hours and a half.
    @Test func aLineEveryTenSecondsIsWrittenOnceAnHourWithItsCount() {
        var log = RepeatedLines()
        var written: [(Double, String)] = []
        for t in stride(from: 0.0, to: 9000, by: 10) {
            written += log.admit("upright: warning: Nothing to play", at: t).map { (t, $0) }
        }
        written += log.flushAll().map { (9000, $0) }
        #expect(
            written.map(\.1) == [
                "upright: warning: Nothing to play",
                "upright: warning: Nothing to play (the same 360 times in the last hour)",
                "upright: warning: Nothing to play",
                "upright: warning: Nothing to play (the same 360 times in the last hour)",
                "upright: warning: Nothing to play",
                "upright: warning: Nothing to play (the same 180 times in the last hour)",
            ])
        #expect(written.map(\.0) == [0, 3600, 3600, 7200, 7200, 9000])
    }

    @Test func otherLinesPassAndEndedWindowsAreCountedWhenTheNextLineComes() {
        var log = RepeatedLines(window: 60)
        #expect(log.admit("a", at: 0) == ["a"])
        #expect(log.admit("b", at: 1) == ["b"])
        #expect(log.admit("a", at: 2) == ["a"], "b was news since a")
        #expect(log.admit("a", at: 3) == [])
        #expect(log.admit("c", at: 70) == ["a (the same 3 times in the last 60 s)", "c"], "b came once: no count")
        #expect(log.admit("b", at: 71) == ["b"], "its window ended: written again")
    }

    /// A state that comes back after news is written; a loop of the same lines is folded.
    @Test func aLineAfterNewsIsWrittenAndALoopIsFolded() {
        var log = RepeatedLines()
        var written: [String] = []
        for (t, line) in ["connected", "lost", "connected"].enumerated() { written += log.admit(line, at: Double(t)) }
        #expect(written == ["connected", "lost", "connected"])
        // A broker that comes and goes every few seconds: one more round, then nothing till the hour.
        written = []
        for t in 3..<100 { written += log.admit(t.isMultiple(of: 2) ? "connected" : "lost", at: Double(t)) }
        #expect(written.isEmpty)
        // Nothing to play: the splash and the failure, in turn, every 10 s.
        written = []
        for t in stride(from: 100.0, to: 1000, by: 10) {
            written += log.admit("playing splash.png", at: t) + log.admit("cannot play a.mp4", at: t + 1)
        }
        #expect(written == ["playing splash.png", "cannot play a.mp4", "playing splash.png"])
        #expect(
            log.flushAll() == [
                "connected (the same 50 times in the last hour)", "lost (the same 50 times in the last hour)",
                "playing splash.png (the same 90 times in the last hour)",
                "cannot play a.mp4 (the same 90 times in the last hour)",
            ])
    }

    @Test func onlyCapacityLinesAreRememberedAndTheForgottenOnesCountIsWritten() {
        var log = RepeatedLines(capacity: 2)
        _ = log.admit("a", at: 0)
        _ = log.admit("a", at: 1)
        _ = log.admit("b", at: 2)
        #expect(log.admit("c", at: 3) == ["a (the same 2 times in the last hour)", "c"])
        #expect(log.admit("a", at: 4) == ["a"])
    }
}
