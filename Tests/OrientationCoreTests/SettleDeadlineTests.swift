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
        var k = 0
        while c.settleDeadline == nil, k < turned.count {
            #expect(c.feed(turned[k]) == nil)
            k += 1
        }
        let due = try #require(c.settleDeadline)
        #expect(due == turned[k - 1].t + OrientationClassifier.Parameters().settleTime)
        // 50 ms: after the next poll at 25 Hz (which does not commit), before the one after it.
        #expect(c.feed(turned[k]) == nil)
        k += 1
        #expect(due < turned[k - 1].t + 0.04)
        #expect(c.advance(to: due - 0.001) == nil)
        let committed = c.advance(to: due)
        let change = try #require(committed)
        #expect(change.orientation == .landscapeLeft)
        #expect(change.t == due)
        #expect(c.settleDeadline == nil)
        #expect(c.feed(turned[k]) == nil)  // the next poll repeats it: nothing new
    }

    @Test func aNewReadingBeforeTheDeadlineDecidesInstead() throws {
        var (c, turned) = portraitThenLandscape()
        var k = 0
        while c.settleDeadline == nil, k < turned.count {
            _ = c.feed(turned[k])
            k += 1
        }
        // Back to portrait before the deadline: nothing to commit.
        _ = c.feed(GravitySample(t: turned[k - 1].t + 0.02, x: 0.2, y: 9.8, z: 0.5))
        _ = c.feed(GravitySample(t: turned[k - 1].t + 0.03, x: 0.2, y: 9.8, z: 0.5))
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
