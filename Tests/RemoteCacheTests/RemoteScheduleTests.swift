import PropertyBased
import RemoteCache
import Testing

/// When remote items are asked for, as a value with explicit times.
struct RemoteScheduleTests {
    @Test func newItemsAreDueAtOnceThenEveryInterval() {
        var s = RemoteSchedule(interval: 300, retry: 5)
        s.set(["http://a/x.mp4", "http://a/y.mp4"], cached: { $0.hasSuffix("y.mp4") }, at: 100)
        #expect(s.due(at: 100) == ["http://a/x.mp4", "http://a/y.mp4"])
        #expect(s.state(of: "http://a/x.mp4") == "downloading")
        #expect(s.state(of: "http://a/y.mp4") == "cached")
        s.succeeded("http://a/x.mp4", at: 101)
        s.succeeded("http://a/y.mp4", at: 101)
        #expect(s.due(at: 400) == [] && s.due(at: 401).count == 2 && s.nextDeadline == 401)
        // A new playlist: the one kept keeps its time; a new one is due at once; one gone is forgotten.
        s.set(["http://a/y.mp4", "http://b/z.png"], cached: { _ in false }, at: 200)
        #expect(s.due(at: 200) == ["http://b/z.png"])
        #expect(s.items.count == 2 && s.state(of: "http://a/x.mp4") == "unknown")
    }

    @Test func anIndexIsAskedAtItsOwnRefreshFiveSecondsAtLeast() {
        var s = RemoteSchedule(interval: 300, retry: 5)
        s.set(["http://cms/index.smil", "http://cms/a.mp4"], cached: { _ in false }, at: 0)
        for url in s.take(at: 0) { s.succeeded(url, at: 1) }
        #expect(s.nextDeadline == 301)
        // Its Refresh of 30 s: the time set is brought forward, and kept after each answer.
        s.setInterval("http://cms/index.smil", 30, at: 10)
        #expect(s.due(at: 40) == ["http://cms/index.smil"])
        #expect(s.take(at: 40) == ["http://cms/index.smil"])
        s.succeeded("http://cms/index.smil", at: 41)
        #expect(s.items["http://cms/index.smil"]?.nextAt == 71 && s.items["http://cms/a.mp4"]?.nextAt == 301)
        // Too often is held to 5 s; none is the cache's interval again.
        s.setInterval("http://cms/index.smil", 0.5, at: 50)
        #expect(s.ownIntervals["http://cms/index.smil"] == RemoteSchedule.shortestInterval)
        #expect(s.items["http://cms/index.smil"]?.nextAt == 55)
        s.setInterval("http://cms/index.smil", nil, at: 60)
        _ = s.take(at: 60)
        s.succeeded("http://cms/index.smil", at: 61)
        #expect(s.items["http://cms/index.smil"]?.nextAt == 361)
    }

    @Test func failuresBackOffAndSayWhyUntilOneSucceeds() {
        var s = RemoteSchedule(interval: 60, retry: 5)
        s.set(["u"], cached: { _ in true }, at: 0)
        var t = 0.0
        var waits: [Double] = []
        for _ in 0..<6 {
            s.failed("u", why: "connection refused", at: t)
            let next = s.items["u"]!.nextAt
            waits.append(next - t)
            t = next
        }
        #expect(waits == [5, 10, 20, 40, 60, 60])
        #expect(s.state(of: "u") == "stale" && s.items["u"]?.failingSince == 0)
        s.succeeded("u", at: t)
        #expect(s.state(of: "u") == "cached" && s.items["u"]?.problem == nil && s.items["u"]?.failures == 0)
        s.set(["v"], cached: { _ in false }, at: t)
        s.failed("v", why: "the server answered 404", at: t)
        #expect(s.state(of: "v") == "missing")
    }

    @Test func theWaitIsNeverLongerThanTheIntervalNorShorterThanTheRetry() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...2).array(of: 1...80)) { steps in
            var s = RemoteSchedule(interval: 120, retry: 3)
            s.set(["u"], cached: { _ in false }, at: 0)
            var t = 0.0
            for step in steps {
                if step == 0 { s.succeeded("u", at: t) } else { s.failed("u", why: "down", at: t) }
                let wait = s.items["u"]!.nextAt - t
                #expect(wait >= 3 && wait <= 120)
                t += wait
            }
        }
    }

    /// At most three are asked at once; each answer frees a place, and the others wait for one
    /// without a deadline of their own meanwhile (the answer wakes the loop).
    @Test func aFewAreAskedAtOnceAndEachAnswerFreesAPlace() {
        var s = RemoteSchedule(interval: 300, retry: 5)
        s.set(["a", "b", "c", "d", "e"], cached: { _ in false }, at: 0)
        #expect(s.take(at: 0) == ["a", "b", "c"])
        #expect(s.take(at: 0) == [] && s.nextDeadline == nil)
        #expect(s.state(of: "a") == "downloading")
        s.failed("a", why: "stalled", at: 30)
        #expect(s.nextDeadline == 0)
        #expect(s.take(at: 30) == ["d"])
        s.succeeded("b", at: 31)
        #expect(s.take(at: 31) == ["e"])
        s.succeeded("c", at: 32)
        // a is asked again after its back-off, beside the slow one still under way.
        #expect(s.take(at: 34) == [] && s.nextDeadline == 35)
        #expect(s.take(at: 35) == ["a"])
    }
}
