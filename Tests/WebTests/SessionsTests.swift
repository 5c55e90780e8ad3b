import PropertyBased
import Testing
import Web

/// The page's log-ins as a value, with explicit times.
@Suite("Web sessions and the log-in limit")
struct SessionsTests {
    @Test func theSixthWrongPasswordInAMinuteWaitsUntilTheFirstIsAMinuteOld() {
        var s = Sessions()
        for t in [0.0, 5, 10, 20, 30] {
            #expect(s.admit("10.0.0.5", now: t) == .check)  // each wrong: nothing said after it
        }
        #expect(s.admit("10.0.0.5", now: 40) == .wait(seconds: 20))
        // Another client is not held back by this one.
        #expect(s.admit("10.0.0.6", now: 40) == .check)
        // A minute after the first wrong one, one more try.
        #expect(s.admit("10.0.0.5", now: 60.5) == .check)
    }

    @Test func anyPatternOfFailuresAllowsAtMostFiveChecksAfterFailuresInAnyMinute() async {
        // Property: whatever the times of the attempts (all wrong), no 60 s window holds more than
        // five checked attempts after which a sixth was checked.
        await propertyCheck(input: Gen.double(in: 0...30).array(of: 1...40)) { gaps in
            var s = Sessions()
            var t = 0.0
            var checked: [Double] = []
            for gap in gaps {
                t += gap
                if s.admit("client", now: t) == .check { checked.append(t) }
            }
            for (i, start) in checked.enumerated() {
                #expect(checked[i...].prefix { $0 - start < 60 }.count <= 5)
            }
        }
    }

    @Test func attemptsSentAtOnceAreLimitedBeforeAnyIsKnownWrong() {
        var s = Sessions()
        // Ten sent at the same instant: five are checked, the rest wait, whatever their passwords.
        let answers = (0..<10).map { _ in s.admit("10.0.0.7", now: 100) }
        #expect(answers.filter { $0 == .check }.count == 5)
        #expect(answers.suffix(5).allSatisfy { $0 == .wait(seconds: 60) })
    }

    @Test func aRightPasswordDoesNotCountAgainstTheClient() {
        var s = Sessions()
        for t in [0.0, 1, 2, 3] { #expect(s.admit("10.0.0.8", now: t) == .check) }
        #expect(s.admit("10.0.0.8", now: 4) == .check)
        s.succeeded("10.0.0.8", admittedAt: 4)
        // Four wrong ones and a right one: the next attempt is checked.
        #expect(s.admit("10.0.0.8", now: 5) == .check)
        #expect(s.admit("10.0.0.8", now: 6) == .wait(seconds: 54))
    }

    @Test func aSessionIdleTooLongIsGoneAndTheOldestMakesRoom() {
        var s = Sessions()
        s.limit = 3
        _ = s.open(token: "a", csrf: "ca", now: 0)
        _ = s.open(token: "b", csrf: "cb", now: 1)
        _ = s.open(token: "c", csrf: "cc", now: 2)
        #expect(s.use("a", now: 3)?.csrf == "ca")  // a is used again: b is now the oldest
        _ = s.open(token: "d", csrf: "cd", now: 4)
        #expect(s.count == 3)
        #expect(s.use("b", now: 5) == nil)
        #expect(s.use("a", now: 5) != nil)
        #expect(s.use("a", now: 5 + s.idleLimit + 1) == nil)
        #expect(s.use("nonexistent", now: 6) == nil)
        s.close("c")
        #expect(s.use("c", now: 7) == nil)
    }
}

/// bcrypt's global limit and HTTP Basic's remembered password, with explicit times.
@Suite("The password checks' limits")
struct PasswordCheckTests {
    /// A burst of 8, then 2 a second, whoever asks; over a long run never more than the rate.
    @Test func checksAreABurstThenTwoASecond() {
        var s = Sessions()
        var burst = 0
        for _ in 0..<8 where s.mayCheck(now: 0) { burst += 1 }
        #expect(burst == 8)
        let (after, refilled, again) = (s.mayCheck(now: 0.1), s.mayCheck(now: 0.6), s.mayCheck(now: 0.6))
        #expect(!after && refilled && !again)
        var allowed = 0
        for tick in 0..<6000 where s.mayCheck(now: 1 + Double(tick) * 0.01) { allowed += 1 }
        #expect(allowed <= 121 && allowed >= 119, "\(allowed) in 60 s")
    }

    /// A scraper's Basic password, found right once, costs no bcrypt for an hour; another does.
    @Test func aRightBasicPasswordIsRememberedForAnHour() {
        var s = Sessions()
        s.rememberBasic("scrape", now: 10)
        #expect(s.isKnownBasic("scrape", now: 20) && s.isKnownBasic("scrape", now: 3609))
        #expect(!s.isKnownBasic("scrape", now: 3611) && !s.isKnownBasic("scrapE", now: 20))
        #expect(!s.isKnownBasic("", now: 20))
        #expect(Secret.same("a", "a") && !Secret.same("a", "ab") && !Secret.same(nil, ""))
    }
}
