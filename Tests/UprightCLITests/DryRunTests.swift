import Foundation
import Testing

func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
}

@Suite("upright replay --events (dry run)")
struct DryRunTests {
    @Test func decisionsInTimeOrderWithTheirReasons() async throws {
        let run = try await upright(["replay", "--events", fixture("session.jsonl"), fixture("rotate.csv")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try jsonLines(run.stdout)
        let times = lines.map { $0["t"] as! Double }
        #expect(times == times.sorted())
        let decisions = lines.filter { $0["decision"] != nil }
        let summary = decisions.map { "\($0["decision"]!) \($0["reason"]!) \($0["interface"]!) \($0["scene"]!)" }
        #expect(
            summary == [
                "rotate launch portrait inline",
                "keep autorotate-off portrait inline",  // the starting state
                "keep autorotate-off portrait inline",  // device portrait
                "rotate scene landscape-right fullscreen",  // hotkey, device in portrait: preferred landscape
                "keep already landscape-right fullscreen",  // device landscape-left = interface landscape-right
                "keep locked landscape-right fullscreen",
                "rotate forced landscape-left fullscreen",
                "rotate scene portrait inline",  // the hotkey queued during the half turn
                "keep autorotate-off portrait inline",  // unlock
                "keep autorotate-off portrait inline",  // the device orientation comes back
            ])
        #expect(decisions.allSatisfy { Set($0.keys) == ["t", "decision", "interface", "strategy", "scene", "reason"] })
        // The queued hotkey is carried out when the 0.6 s half turn ends.
        #expect(decisions[7]["t"] as? Double == 14.1)
        #expect(decisions[6]["strategy"] as? String == "interface")
        #expect(decisions[5]["strategy"] as? String == "none")
        // The device orientation lines are still there.
        #expect(lines.filter { $0["orientation"] != nil }.count == 2)
    }

    @Test func aWindowedPlayerTurnsOnlyTheSurface() async throws {
        let run = try await upright([
            "replay", "--display", "windowed", "--events", fixture("session.jsonl"), fixture("rotate.csv"),
        ])
        let rotations = try jsonLines(run.stdout).filter {
            $0["decision"] as? String == "rotate" && $0["reason"] as? String != "launch"
        }
        #expect(!rotations.isEmpty && rotations.allSatisfy { $0["strategy"] as? String == "surface" })
    }

    @Test func explainAddsTransitionsAndCauses() async throws {
        let run = try await upright([
            "replay", "--explain", "--events", fixture("session.jsonl"), fixture("rotate.csv"),
        ])
        let lines = try jsonLines(run.stdout)
        let wills = lines.filter { $0["event"] as? String == "will-rotate" }
        let dids = lines.filter { $0["event"] as? String == "did-rotate" }
        #expect(wills.count == 3 && dids.count == 3)
        #expect(wills.map { $0["duration"] as? Double } == [0.3, 0.6, 0.3])
        #expect(lines.contains { $0["cause"] as? String == "rotate-to" })
    }

    @Test func theConfigurationIsUsed() async throws {
        let config = try temporaryFile(
            "[scenes.inline]\nsupported = [\"portrait\", \"landscape-right\"]\nautorotate = true\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["replay", "--config", config, fixture("rotate.csv")])
        let decisions = try jsonLines(run.stdout).filter { $0["decision"] != nil }
        #expect(decisions.last?["reason"] as? String == "device")
        #expect(decisions.last?["interface"] as? String == "landscape-right")
    }

    @Test func aBadConfigurationIsAnErrorWithItsPlace() async throws {
        let config = try temporaryFile("[app]\nlaunch = \"sideways\"\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["replay", "--config", config, fixture("rotate.csv")])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(config):2:10: error: unknown orientation 'sideways'"))
    }

    @Test(arguments: [
        ("{\"t\": 1, \"command\": \"fly\"}\n", ":1: error: unknown command 'fly'"),
        (
            "\n{\"t\": 2, \"command\": \"lock\"}\n{\"t\": 1, \"command\": \"unlock\"}\n",
            ":3: error: time goes backwards: 1.0 after 2.0"
        ),
        ("{\"t\": 1, \"command\": \"rotate-to\"}\n", ":1: error: \"rotate-to\" needs \"orientation\""),
        ("{\"t\": true, \"command\": \"lock\"}\n", ":1: error: \"t\" has the wrong type"),
        ("not json\n", ":1: error: not a JSON object"),
        ("{\"t\": 1}\n", ":1: error: missing \"command\""),
    ])
    func badEventsNameTheLine(text: String, expected: String) async throws {
        let events = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: events) }
        let run = try await upright(["replay", "--events", events, fixture("rotate.csv")])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix(events + expected), "\(run.stderr)")
    }

    @Test func anUnknownSceneIsRejectedNotFatal() async throws {
        let events = try temporaryFile("{\"t\": 11, \"command\": \"push\", \"scene\": \"nope\"}\n")
        defer { try? FileManager.default.removeItem(atPath: events) }
        let run = try await upright(["replay", "--events", events, fixture("rotate.csv")])
        #expect(run.status == 0)
        #expect(try jsonLines(run.stdout).contains { $0["reason"] as? String == "rejected" })
    }
}
