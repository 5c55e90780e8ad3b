public import OrientationCore
import Sensors

/// The demo's readable log: steps, decisions and the detector's changes as lines for a person.
public enum DemoLog {
    /// A decision as a sentence: `→ turn to landscape-right (surface): scene, from fullscreen`.
    public static func decisionLine(_ d: RotationDecision) -> String {
        d.kind == .rotate
            ? "→ turn to \(d.interface) (\(d.strategy.rawValue)): \(d.reason.rawValue), from \(d.cause)"
            : "→ keep \(d.interface): \(d.reason.rawValue), from \(d.cause)"
    }

    public static func stepLine(_ step: TraceScript.Step) -> String {
        "\(pad(seconds(step.start), 7))  script: \(step.label)"
    }

    public static func changeLine(_ change: OrientationClassifier.Change) -> String {
        "\(pad(seconds(change.t), 7))    -> \(change.orientation.name) (\(change.why))"
    }

    public static func seconds(_ t: Double) -> String { "\(t.fixed(2)) s" }

    public static func pad(_ s: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - s.count)) + s
    }
}
