import Config
public import Control
public import Display
import Foundation
public import OrientationCore
public import Playback
import Session
public import Wire

/// The control socket's requests: one JSON object per line, `{"command": NAME}` with an
/// `"argument"` for the actions that take one (`rotate-to`, `scene-push`). The names are the
/// one vocabulary of actions (``Action``), plus `status`.
public enum ControlRequest: Sendable, Hashable {
    case status
    /// A PNG of what the screen shows, in the reply.
    case screenshot
    case action(Action)
    /// The touch check (`upright touch-check`).
    case touchCheck(TouchCheckAsk)
    /// The node's health (`upright health`).
    case health

    /// The command names, for errors and `upright ctl --help`.
    public static var names: [String] { ["status", "screenshot", "touch-check", "health"] + Action.names }

    static let example = "a request is a JSON object on one line, such as {\"command\": \"status\"}"

    /// Parses one request line; the error is the reply's text.
    public static func parse(_ line: String) -> Result<ControlRequest, ControlError> {
        // Strict JSON first: Foundation's decoder lets a trailing comma through and keeps the last
        // of a repeated key ({"command":"status","command":"lock"} would lock).
        if let problem = StrictJSON.problem(in: line) {
            return .failure(ControlError("the request is not strict JSON: \(problem); \(example)"))
        }
        let request: ControlRequestLine
        do {
            request = try JSONDecoder().decode(ControlRequestLine.self, from: Data(line.utf8))
        } catch DecodingError.typeMismatch(_, let context) {
            let key = context.codingPath.last?.stringValue ?? "the request"
            return .failure(ControlError("\"\(key)\" must be a string"))
        } catch {
            return .failure(ControlError(example))
        }
        guard let command = request.command else {
            return .failure(
                ControlError("the request has no \"command\"; expected one of: \(names.joined(separator: ", "))"))
        }
        if command == "status" { return .success(.status) }
        if command == "screenshot" { return .success(.screenshot) }
        if command == "health" { return .success(.health) }
        if command == "touch-check" { return TouchCheckAsk.parse(request.argument).map { .touchCheck($0) } }
        switch Action.parse(name: command, argument: request.argument) {
        case .success(let action):
            return .success(.action(action))
        case .failure(.unknown):
            return .failure(
                ControlError("unknown command '\(command)'; expected one of: \(names.joined(separator: ", "))"))
        case .failure(.missingArgument(let name, let kind)):
            return .failure(
                ControlError("\(name) needs an \"argument\", \(kind.phrase): \(ActionError.expected(kind))"))
        case .failure(.badArgument(let name, let got, let kind)):
            return .failure(
                ControlError("\(name) needs an \"argument\", \(ActionError.expected(kind)); got '\(got)'"))
        case .failure(let error):
            return .failure(ControlError("\(error)"))
        }
    }
}

/// What the touch check is asked: where it stands, to start or stop, or a tap at a point of the
/// window (in pixels, as mpv takes a touch: for a check run without a finger).
public enum TouchCheckAsk: Sendable, Hashable {
    case report
    case run(TouchCheckCommand)
    case tap(x: Int, y: Int)

    static let expected = "\"start\", \"stop\", \"tap X Y\" (the window's pixels) or none (where it stands)"

    static func parse(_ argument: String?) -> Result<TouchCheckAsk, ControlError> {
        let words = (argument ?? "").split(separator: " ", omittingEmptySubsequences: true)
        switch words.first {
        case nil: return .success(.report)
        case "start" where words.count == 1: return .success(.run(.start))
        case "stop" where words.count == 1: return .success(.run(.stop))
        case "tap" where words.count == 3:
            if let x = Int(words[1]), let y = Int(words[2]), (0...100_000).contains(x), (0...100_000).contains(y) {
                return .success(.tap(x: x, y: y))
            }
        default: break
        }
        return .failure(ControlError("touch-check takes \(expected); got '\(argument ?? "")'"))
    }
}

extension DisplayStatus {
    /// The display as the session's status reports it.
    public var report: DisplayReport {
        var report = DisplayReport(
            backend: backend.rawValue, turnsOutputs: canRotate && problem == nil, reason: reason, output: output,
            transform: transform?.clockwise, problem: problem)
        report.others = others
        report.desktop = desktop
        report.identity = identity
        return report
    }

    /// One line for the log at start: the backend, why it was chosen, the output and any problem.
    var summary: String {
        "\(backend.rawValue) (\(reason))" + (output.map { ", output \($0)" } ?? "")
            + (identity.map { " (\($0))" } ?? "")
            + (problem.map { $0 == reason ? "" : "; \($0)" } ?? "")
            + others.map { "; also turning outputs: \($0)" }.joined()
    }
}

extension UprightConfiguration {
    /// What changed in `new` that applies only at the next start, in words.
    func restartNotes(for new: UprightConfiguration) -> [String] {
        var notes: [String] = []
        if new.sensor != sensor || new.lock.evdev != lock.evdev {
            notes.append("sensor and lock-switch settings take effect at the next start")
        }
        if new.display != display { notes.append("display settings take effect at the next start") }
        if new.screenPlan != screenPlan || new.screenCEC != screenCEC || new.screenIdleOff != screenIdleOff
            || new.screenToastSeconds != screenToastSeconds
        {
            notes.append("[screen] settings (the power plan, idle_off, toast_seconds) take effect at the next start")
        }
        if new.web != web { notes.append("the operator's page's settings take effect at the next start") }
        if new.player.hotkeys != player.hotkeys || new.input != input {
            notes.append("hotkeys and input devices take effect at the next start")
        }
        return notes
    }
}

extension ControlReply {
    /// A reply line read back (`upright ctl`, tests); `nil` when it is not one.
    public init?(line: String) {
        guard let reply = try? JSONDecoder().decode(ControlReply.self, from: Data(line.utf8)) else { return nil }
        self = reply
    }
}
