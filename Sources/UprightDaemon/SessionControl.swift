import Display
import Foundation
public import OrientationCore

/// The control socket's requests: one JSON object per line, `{"command": NAME}` with an
/// `"argument"` for `rotate-to` (an orientation) and `scene-push` (a scene).
public enum ControlRequest: Sendable, Hashable {
    case status
    case policy(PolicyCommand)
    case next
    case previous

    /// The command names, for errors and `upright ctl --help`.
    public static let names = [
        "status", "fullscreen", "lock", "unlock", "rotate-to", "accept-suggestion", "next", "prev", "scene-push",
        "scene-pop",
    ]

    /// Parses one request line; the error is the reply's text.
    public static func parse(_ line: String) -> Result<ControlRequest, ControlError> {
        guard let data = line.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else {
            return .failure(ControlError("a request is a JSON object on one line, such as {\"command\": \"status\"}"))
        }
        guard let command = object["command"] as? String else {
            return .failure(
                ControlError("the request has no \"command\"; expected one of: \(names.joined(separator: ", "))"))
        }
        let argument = object["argument"] as? String
        switch command {
        case "status": return .success(.status)
        case "fullscreen": return .success(.policy(.fullscreen))
        case "lock": return .success(.policy(.lock))
        case "unlock": return .success(.policy(.unlock))
        case "accept-suggestion": return .success(.policy(.acceptSuggestion))
        case "next": return .success(.next)
        case "prev", "previous": return .success(.previous)
        case "scene-pop": return .success(.policy(.pop))
        case "rotate-to":
            guard let argument, let o = InterfaceOrientation(name: argument) else {
                return .failure(
                    ControlError(
                        "rotate-to needs an \"argument\", one of: \(InterfaceOrientation.allNames.joined(separator: ", "))"
                            + (argument.map { "; got '\($0)'" } ?? "")))
            }
            return .success(.policy(.rotateTo(o)))
        case "scene-push":
            guard let argument, !argument.isEmpty else {
                return .failure(ControlError("scene-push needs an \"argument\": the scene's name"))
            }
            return .success(.policy(.push(argument)))
        default:
            return .failure(
                ControlError("unknown command '\(command)'; expected one of: \(names.joined(separator: ", "))"))
        }
    }
}

/// JSON text for a reply.
func replyJSON(_ object: [String: Any]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
        return #"{"ok": false, "error": "internal: the reply could not be encoded"}"#
    }
    return String(decoding: data, as: UTF8.self)
}

func errorReply(_ message: String) -> String { replyJSON(["ok": false, "error": message]) }

extension RotationDecision {
    var json: [String: Any] {
        [
            "t": (t * 1000).rounded() / 1000, "decision": kind.rawValue, "interface": interface.name,
            "strategy": strategy.rawValue, "scene": scene, "reason": reason.rawValue, "cause": cause,
        ]
    }
}

extension DisplayStatus {
    var json: [String: Any] {
        var d: [String: Any] = [
            "backend": backend.rawValue, "turns_outputs": canRotate && problem == nil, "reason": reason,
        ]
        d["output"] = output ?? NSNull()
        d["transform"] = transform.map { $0.clockwise as Any } ?? NSNull()
        d["problem"] = problem ?? NSNull()
        return d
    }
}
