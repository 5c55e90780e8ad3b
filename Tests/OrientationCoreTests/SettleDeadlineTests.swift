import OrientationCore
import Testing

@Suite("Settle deadline: a change reported when it settles, not at the next poll")
struct SettleDeadlineTests {
    /// Portrait for a second at 25 Hz, then a quarter turn written in one step (as the sensor
    /// benchmark does), polled at 25 Hz.
    func portraitThenLandscape() -> (OrientationClassifier, [GravitySample]) {
        var c = OrientationClassifier()
        for i in 0...25 { _ = c.feed(GravitySample(t: Double(i) * 0.04, x: 0.2, y: 9.8, z: 0.5)) }
        #expect(c.orientation == .portrait)
        let turned = (1...4).map { GravitySample(t: 1.0 + Double($0) * 0.04, x: 9.8, y: 0.2, z: 0.5) }
        return (c, turned)
    }

    @Test func thePendingChangeCommitsAtItsDeadline() throws {
        var (c, turned) = portraitThenLandscape()
        #expect(c.settleDeadline == nil)
        // The first reading at rest 90° away restarts the filter: the candidate is pending at once,
        // but one reading alone is never reported between polls.
        #expect(c.feed(turned[0]) == nil)
        #expect(c.settleDeadline == nil)
        #expect(c.advance(to: turned[0].t + 1) == nil)
        // The second agrees (40 ms held, under the 50 ms settle time): due 50 ms after the first.
        #expect(c.feed(turned[1]) == nil)
        let due = try #require(c.settleDeadline)
        #expect(abs(due - (turned[0].t + OrientationClassifier.Parameters().settleTime)) < 1e-9)
        #expect(c.advance(to: due - 0.001) == nil)
        let committed = c.advance(to: due)
        let change = try #require(committed)
        #expect(change.orientation == .landscapeLeft)
        #expect(change.t == due)
        #expect(c.settleDeadline == nil)
        #expect(c.feed(turned[2]) == nil)  // the next poll repeats it: nothing new
    }

    @Test func oneOddReadingAtRestIsNeverReported() {
        var (c, turned) = portraitThenLandscape()
        _ = c.feed(turned[0])  // a glitch: one reading 90° away
        #expect(c.advance(to: turned[0].t + 0.2) == nil)
        #expect(c.feed(GravitySample(t: turned[0].t + 0.04, x: 0.2, y: 9.8, z: 0.5)) == nil)
        #expect(c.feed(GravitySample(t: turned[0].t + 0.08, x: 0.2, y: 9.8, z: 0.5)) == nil)
        #expect(c.orientation == .portrait)
    }

    @Test func aNewReadingBeforeTheDeadlineDecidesInstead() throws {
        var (c, turned) = portraitThenLandscape()
        _ = c.feed(turned[0])
        _ = c.feed(turned[1])
        #expect(c.settleDeadline != nil)
        // Back to portrait before the deadline: nothing to commit.
        _ = c.feed(GravitySample(t: turned[1].t + 0.005, x: 0.2, y: 9.8, z: 0.5))
        _ = c.feed(GravitySample(t: turned[1].t + 0.008, x: 0.2, y: 9.8, z: 0.5))
        if let due = c.settleDeadline { #expect(c.advance(to: due)?.orientation != .landscapeLeft) }
        #expect(c.orientation == .portrait)
    }

    @Test func replayIsUnchanged() {
        // advance(to:) is only called between polls: feeding samples alone behaves as before.
        var a = OrientationClassifier(), b = OrientationClassifier()
        let (_, turned) = portraitThenLandscape()
        for s in turned {
            _ = a.feed(s)
            _ = b.feed(s)
            _ = b.settleDeadline  // reading it changes nothing
        }
        #expect(a.orientation == b.orientation)
    }
}
