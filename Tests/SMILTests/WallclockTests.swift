import Testing

@testable import SMIL

@Suite struct WallclockTests {
    /// 2021-04-01T00:00:00Z, a Thursday.
    static let april = 1_617_235_200.0

    @Test(arguments: [
        ("2021-04-01T00:00:00", 0.0, 0, 0 as Int?),
        ("2021-04-01T10:30", 37_800, 0, 0),
        ("2021-04-01T10:30:15.5Z", 37_815.5, 0, 0),
        ("2021-04-01T10:30:00+02:00", 30_600, 0, 0),
        ("R/2021-04-01T00:00:05/PT15S", 5, 15, nil),
        ("R3/2021-04-01T00:00:00/P1D", 0, 86_400, 3),
        ("R/2021-04-01T00:00:00/P0H", 0, 0, 0),
    ])
    func valuesRead(text: String, first: Double, step: Double, repeats: Int?) throws {
        let w = try #require(Wallclock(Substring(text)))
        let zero = w.instance(0, today: Self.april, localOffset: 0) - Self.april
        #expect(zero == first)
        #expect(w.repeats == repeats)
        if step > 0 { #expect(w.instance(1, today: Self.april, localOffset: 0) - Self.april - first == step) }
    }

    @Test(arguments: [
        "", "R/2021-07-31T00:00:00PT10S", "2021-13-01T00:00", "2021-02-30T00:00", "25:00", "R/2021-04-01/PX",
        "2021-04-01+w8T00:00", "12:60", "R-1/2021-04-01T00:00/PT1S",
    ])
    func malformedValuesAreRefused(text: String) {
        #expect(Wallclock(Substring(text)) == nil)
    }

    @Test func aWeekdayIsTheFirstOnOrAfterTheDateAndATimeAloneIsToday() throws {
        // 2020-01-01 was a Wednesday: +w1 is Monday the 6th, -w1 Monday 2019-12-30.
        let monday = try #require(Wallclock("R/2020-01-01+w1T19:10/P1W"))
        let first = monday.instance(0, today: 0, localOffset: 0)
        #expect(first == Double(Civil.days(year: 2020, month: 1, day: 6)) * 86_400 + 19 * 3600 + 600)
        let before = try #require(Wallclock("2020-01-01-w1T00:00"))
        #expect(
            before.instance(0, today: 0, localOffset: 0) == Double(Civil.days(year: 2019, month: 12, day: 30)) * 86_400)
        let today = try #require(Wallclock("17:22:10"))
        #expect(
            today.instance(0, today: Self.april + 5000, localOffset: 3600) == Self.april + 17 * 3600 + 22 * 60 + 10
                - 3600)
    }

    @Test func theNearestInstanceEitherSide() throws {
        let w = try #require(Wallclock("R/2021-04-01T00:00:05/PT15S"))
        #expect(w.instance(near: Self.april + 100, atOrAfter: true, localOffset: 0) == Self.april + 110)
        #expect(w.instance(near: Self.april + 100, atOrAfter: false, localOffset: 0) == Self.april + 95)
        #expect(w.instance(near: Self.april + 110, atOrAfter: false, localOffset: 0) == Self.april + 110)
        #expect(w.instance(near: Self.april, atOrAfter: false, localOffset: 0) == nil)
        let three = try #require(Wallclock("R2/2021-04-01T00:00:00/PT10S"))
        #expect(three.instance(near: Self.april + 21, atOrAfter: true, localOffset: 0) == nil)
        let monthly = try #require(Wallclock("R/2021-01-31T08:00:00/P1M"))
        let february = try #require(monthly.instance(near: Self.april - 86_400 * 40, atOrAfter: true, localOffset: 0))
        let day = Civil.date(Int(february / 86_400))
        #expect([day.year, day.month, day.day] == [2021, 2, 28])
    }

    /// Repeats without a count never end: a 10 s period begun years ago (more than ten million
    /// repeats in) still has its next instance within 10 s.
    @Test func anEndlessRepeatBegunYearsAgoGoesOn() throws {
        let w = try #require(Wallclock("R/2021-04-01T00:00:02/PT10S"))
        let later = Self.april + 5 * 365 * 86_400 + 3.5
        #expect(w.instance(near: later, atOrAfter: true, localOffset: 0) == Self.april + 5 * 365 * 86_400 + 12)
        #expect(w.instance(near: later, atOrAfter: false, localOffset: 0) == Self.april + 5 * 365 * 86_400 + 2)
    }

    /// The form of garlic-player's `par/5_wallclock.smil`: zones that begin on the quarter minute.
    @Test func aFutureWallclockBeginIsWaitedFor() throws {
        let body = """
            <par>
              <seq begin="wallclock(R/2021-04-01T00:00:05/PT15S)">\(img("a"))\(img("b"))</seq>
              \(img("once", "begin=\"wallclock(2021-04-01T02:00:10+02:00)\" dur=\"1s\""))
            </par>
            """
        var run = try Run(smil(body), base: Self.april + 3)
        run.run(until: 21)
        #expect(run.timed() == ["a@2", "b@3", "-@4", "once@7", "-@8", "a@17", "b@18", "-@19"])
    }

    @Test func aDailyWindowOpenNowIsJoinedAndEndsOnTime() throws {
        // At 10:00 the 07:00–23:59 window is open: the seq begins at once and stops at 23:59.
        let body = """
            <excl dur="indefinite">
              <seq begin="wallclock(R/2021-04-01T07:00:00/P1D)" end="wallclock(R/2021-04-01T23:59:00/P1D)" repeatCount="indefinite">
                \(img("day", "dur=\"600s\""))
              </seq>
              \(img("night", "begin=\"wallclock(R/2021-04-01T23:59:00/P1D)\" dur=\"25200s\""))
            </excl>
            """
        var run = try Run(smil(body), base: Self.april + 10 * 3600)
        run.run(until: 16 * 3600)
        #expect(run.order().prefix(2) == ["day", "day"])
        #expect(run.log.last.map { $0.time - 50_340 } == 0)
        #expect(run.order().last == "night")
        run.run(until: 21 * 3600 + 60)
        #expect(run.order().last == "day")
        #expect(run.log.last.map { $0.time - 21 * 3600 } == 0)
    }

    @Test func aClockThatStepsMovesWhatWaitsForTheWallclock() throws {
        // Booted with the clock at 1970: once it is set, the next quarter minute begins.
        let body = "<seq begin=\"wallclock(R/2021-04-01T00:00:00/PT15S)\">\(img("a"))</seq>"
        var run = try Run(smil(body), base: 0)
        run.run(until: 10)
        #expect(run.log.isEmpty)
        _ = run.p.handle(.tick(Moment(elapsed: 11, utc: Self.april + 7, utcOffset: 0)))
        #expect(run.p.nextChange == 19)
    }

    @Test func aSeqsChildWaitsForTheWallclockOnlyInItsTurn() throws {
        let body =
            "<seq>" + img("a", #"dur="12s""#)
            + img("w", #"begin="wallclock(R/2021-04-01T00:00:00/PT10S)" dur="1s""#) + img("c", #"dur="30s""#)
            + "</seq>"
        var run = try Run(smil(body), base: Self.april + 1)
        run.run(until: 55)
        // w waits from a's end (13 s on the clock) for the next tenth second (20 s: 19 s
        // elapsed), once: c then plays its 30 s.
        #expect(run.timed() == ["a@0", "-@12", "w@19", "c@20", "a@50"])
    }
}
