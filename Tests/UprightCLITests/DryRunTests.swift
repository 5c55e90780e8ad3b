import Foundation
import OrientationCore
import Session
import Testing
import Wire

/// `upright replay`'s lines, each read back by the type that wrote it; one that does not read
/// back into the same line (a key more or less, another order) fails the test.
func replayLines(_ text: String) throws -> [ReplayLine] {
    try text.split(separator: "\n").map { line in
        let read = try JSONDecoder().decode(ReplayLine.self, from: Data(line.utf8))
        #expect(written(read) == String(line), "\(line) is not what its record writes")
        return read
    }
}

/// The play log's decision lines, read back as the records they were written from.
func decisionLines(_ text: String) throws -> [RotationDecision.Record] {
    try text.split(separator: "\n").map { try JSONDecoder().decode(RotationDecision.Record.self, from: Data($0.utf8)) }
}

/// The line a record writes.
private func written(_ line: ReplayLine) -> String {
    switch line {
    case .decision(let d): JSONLine.encode(d)
    case .transition(let r): JSONLine.encode(r)
    case .suggestion(let r): JSONLine.encode(r)
    case .change(let r): JSONLine.encode(r)
    }
}

@Suite("upright replay --events (dry run)")
struct DryRunTests {
    @Test func decisionsInTimeOrderWithTheirReasons() async throws {
        let run = try await upright(["replay", "--events", fixture("session.jsonl"), fixture("rotate.csv")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try replayLines(run.stdout)
        let times = lines.map(\.t)
        #expect(times == times.sorted())
        let decisions = lines.compactMap(\.decision)
        let summary = decisions.map {
            "\($0.decision.rawValue) \($0.reason.rawValue) \($0.interface.name) \($0.scene)"
        }
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
        #expect(decisions.allSatisfy { $0.cause == nil }, "no cause without --explain")
        // The queued hotkey is carried out when the 0.6 s half turn ends.
        #expect(decisions[7].t.value == 14.1)
        #expect(decisions[6].strategy == .interface)
        #expect(decisions[5].strategy == AppliedStrategy.none)
        // The device orientation lines are still there.
        #expect(lines.filter { $0.change != nil }.count == 2)
    }

    @Test func aWindowedPlayerTurnsOnlyTheSurface() async throws {
        let run = try await upright([
            "replay", "--display", "windowed", "--events", fixture("session.jsonl"), fixture("rotate.csv"),
        ])
        let rotations = try replayLines(run.stdout).compactMap(\.decision).filter {
            $0.decision == .rotate && $0.reason != .launch
        }
        #expect(!rotations.isEmpty && rotations.allSatisfy { $0.strategy == .surface })
    }

    @Test func explainAddsTransitionsAndCauses() async throws {
        let run = try await upright([
            "replay", "--explain", "--events", fixture("session.jsonl"), fixture("rotate.csv"),
        ])
        let lines = try replayLines(run.stdout)
        let wills = lines.compactMap(\.transition).filter { $0.event == .willRotate }
        let dids = lines.compactMap(\.transition).filter { $0.event == .didRotate }
        #expect(wills.count == 3 && dids.count == 3)
        #expect(wills.map(\.duration) == [0.3, 0.6, 0.3])
        #expect(lines.contains { $0.decision?.cause == "rotate-to" })
    }

    @Test func theConfigurationIsUsed() async throws {
        let config = try temporaryFile(
            "[scenes.inline]\nsupported = [\"portrait\", \"landscape-right\"]\nautorotate = true\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["replay", "--config", config, fixture("rotate.csv")])
        let decisions = try replayLines(run.stdout).compactMap(\.decision)
        #expect(decisions.last?.reason == .device)
        #expect(decisions.last?.interface == .landscapeRight)
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
        #expect(try replayLines(run.stdout).contains { $0.decision?.reason == .rejected })
    }
}
