import Testing

@testable import RemoteCache

/// The newest version: what an answer may say, and when it is asked again, at explicit times.
@Suite struct UpdateWatchTests {
    @Test(arguments: [
        ("0.13.0\n", "0.13.0"), ("  1.2.3+deb12u1  \r\nnotes", "1.2.3+deb12u1"), ("2026.11~rc1", "2026.11~rc1"),
    ])
    func aFirstLineIsAVersion(body: String, version: String) {
        #expect(LatestVersion.version(body) == .success(version))
    }

    @Test(arguments: ["", "\n\n", "<html>", "1.0; rm -rf /", String(repeating: "9", count: 65), "1.0\u{202E}"])
    func anythingElseIsNot(body: String) {
        #expect((try? LatestVersion.version(body).get()) == nil)
    }

    /// The problem quotes the line with its control characters escaped: a server's terminal
    /// escapes never reach the log or the status as they are.
    @Test(arguments: [
        ("\u{1B}[2J1.0\u{7}", #""\u{1B}[2J1.0\u{7}""#), ("z\u{9C}", #""z\u{9C}""#), ("1.0\u{202E}", #""1.0\u{202E}""#),
        ("<html>", #""<html>""#),
    ])
    func theProblemQuotesTheLineEscaped(body: String, quoted: String) {
        guard case .failure(let problem) = LatestVersion.version(body) else {
            Issue.record("taken as a version")
            return
        }
        #expect(problem.description == "its first line is not a version: " + quoted, "\(problem)")
    }

    @Test func askedEveryIntervalAndSoonerWhileItFails() {
        var w = UpdateWatch(interval: 3600)
        #expect(w.due(at: 0))
        w.answered(.success("0.13.0"), at: 10)
        #expect(w.latest == "0.13.0" && w.checkedAt == 10 && !w.due(at: 3609) && w.due(at: 3610))
        w.answered(.failure(VersionProblem("the server answered 503")), at: 3610)
        #expect(w.latest == "0.13.0" && w.problem == "the server answered 503", "the last version known stays")
        #expect(w.nextAt == 3910)
        w.answered(.failure(VersionProblem("the server answered 503")), at: 3910)
        #expect(w.nextAt == 4510)
        for t in 0..<10 { w.answered(.failure(VersionProblem("down")), at: 5000 + Double(t)) }
        #expect(w.nextAt == 5009 + 3600, "never longer than the interval")
        w.answered(.success("0.14.0"), at: 9000)
        #expect(w.problem == nil && w.latest == "0.14.0" && w.nextAt == 12600)
    }
}
