import Session
import Testing

@Suite("Proof of play")
struct ProofOfPlayTests {
    @Test func eachItemIsOneRecordWithHowItEnded() {
        var p = ProofOfPlay()
        #expect(p.playing("/a.mp4", at: 100).isEmpty)
        let a = p.playing("/b.png", at: 112.5)
        #expect(a.map(\.item) == ["/a.mp4"] && a[0].outcome == .ended && a[0].seconds == 12.5)
        #expect(a[0].start == 100 && a[0].end == 112.5 && a[0].reason == nil)
        p.leave(at: 113)
        let b = p.playing("/c.mp4", at: 113.25)
        #expect(b.map(\.outcome) == [.skipped] && b[0].seconds == 0.75)
        // Left once: the next change is an ending again.
        #expect(p.playing("/a.mp4", at: 120).map(\.outcome) == [.ended])
        let failed = p.failed("/a.mp4", reason: "no video or audio data", at: 121)
        #expect(failed.map(\.outcome) == [.failed] && failed[0].reason == "no video or audio data")
        #expect(p.idle(at: 122).isEmpty, "nothing was playing")
    }

    @Test func anItemThatNeverStartedIsAFailureOfNoLength() {
        var p = ProofOfPlay()
        _ = p.playing("/a.mp4", at: 10)
        let r = p.failed("/missing.mp4", reason: "no such file", at: 11)
        #expect(r.count == 1 && r[0].item == "/missing.mp4" && r[0].start == 11 && r[0].end == 11)
        #expect(r[0].seconds == 0 && r[0].outcome == .failed && r[0].reason == "no such file")
        #expect(p.stopped(at: 15).map(\.outcome) == [.stopped], "the one playing goes on meanwhile")
    }

    @Test func aStallAndAStopCloseTheItemPlaying() {
        var p = ProofOfPlay()
        _ = p.playing("/live.m3u8", at: 0)
        #expect(p.stalled(at: 30).map(\.outcome) == [.stalled])
        _ = p.playing("/live.m3u8", at: 31)
        let stop = p.stopped(at: 40)
        #expect(stop.map(\.outcome) == [.stopped] && stop.map(\.seconds) == [9])
        #expect(p.stopped(at: 41).isEmpty)
    }
}

@Suite("Proof of play of a SMIL presentation's zones")
struct ZoneProofOfPlayTests {
    @Test func eachZoneIsRecordedOnItsOwnWithItsRegionAndID() {
        var p = ProofOfPlay()
        #expect(p.zone("main", shows: "http://cms/a.mp4", id: "a", at: 0).isEmpty)
        #expect(p.zone("side", shows: "http://cms/logo.png", id: nil, at: 1).isEmpty)
        let a = p.zone("main", shows: "http://cms/b.png", id: "b", at: 10)
        #expect(a.count == 1 && a[0].item == "http://cms/a.mp4" && a[0].region == "main" && a[0].id == "a")
        #expect(a[0].seconds == 10 && a[0].outcome == .ended)
        // Cleared: what the zone showed ended, and nothing is open in it.
        let b = p.zone("main", shows: nil, id: nil, at: 12)
        #expect(b.map(\.item) == ["http://cms/b.png"] && b[0].id == "b")
        #expect(p.zone("main", shows: nil, id: nil, at: 13).isEmpty)
        // A stop closes every zone still open, each on its own, and a playlist item's too.
        _ = p.playing("/x.mp4", at: 14)
        let stop = p.stopped(at: 20)
        #expect(stop.map(\.item) == ["/x.mp4", "http://cms/logo.png"], "\(stop.map(\.item))")
        #expect(stop.allSatisfy { $0.outcome == .stopped } && stop[1].region == "side" && stop[1].seconds == 19)
    }
}
