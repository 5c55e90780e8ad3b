import Diagnostics
import Foundation
public import OrientationCore
public import Session
import Wire

/// One timed input of a dry run, from the events file.
public struct TimedEvent: Sendable, Hashable {
    public var t: Double
    public var event: SessionInput
    /// 1-based line in the events file.
    public var line: Int
}

/// The events file of a dry run: JSON lines such as `{"t": 5.0, "command": "fullscreen"}`.
public enum EventsFile {
    /// Reads an events file. A line without `"t"` happens at the time of the line before it (the
    /// start of the trace for the first). Blank lines and lines starting with `#` are skipped.
    public static func load(path: String) throws(CLIFailure) -> [TimedEvent] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(
                diagnostic: "\(path): error: "
                    + (FileManager.default.fileExists(atPath: path)
                        ? "cannot read the events file" : "no such file"))
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    public static func parse(_ text: String, path: String) throws(CLIFailure) -> [TimedEvent] {
        var out: [TimedEvent] = []
        var last = -Double.infinity
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ message: String) -> CLIFailure { CLIFailure(diagnostic: "\(path):\(i + 1): error: \(message)") }
            struct Line: Decodable {
                var t: Double?
                var command: String?
                var orientation: String?
                var scene: String?
                var argument: String?
                var can_rotate: Bool?
                var owns: Bool?
            }
            let object: Line
            do {
                object = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            } catch DecodingError.typeMismatch(_, let context) {
                let key = context.codingPath.last?.stringValue ?? "the line"
                throw fail(
                    "\"\(key)\" has the wrong type: " + (key == "t" ? "a number of seconds is expected" : "see --help"))
            } catch {
                throw fail("not a JSON object")
            }
            let t = object.t ?? last
            guard t.isFinite || last == -Double.infinity else { throw fail("\"t\" must be a finite number of seconds") }
            guard t >= last || last == -Double.infinity else { throw fail("time goes backwards: \(t) after \(last)") }
            last = t
            guard let name = object.command else { throw fail("missing \"command\"") }
            let event: SessionInput
            if name == "display" {
                let rotate = object.can_rotate ?? false, owns = object.owns ?? true
                event = .displayProbed(DisplayAbilities(canRotateOutput: rotate, ownsOutput: owns), .none)
            } else {
                let argument = object.orientation ?? object.scene ?? object.argument
                switch Action.parse(name: name, argument: argument) {
                case .success(let action): event = .command(action, from: .events)
                case .failure(.unknown):
                    throw fail(
                        "unknown command '\(name)'; expected one of: \(Action.names.joined(separator: ", ")), display")
                case .failure(.missingArgument(let canonical, let kind)),
                    .failure(.badArgument(let canonical, _, let kind)):
                    throw fail("\"\(canonical)\" needs \"\(kind.rawValue)\": \(ActionError.expected(kind))")
                case .failure(let error):
                    throw fail("\(error)")
                }
            }
            out.append(TimedEvent(t: t, event: event, line: i + 1))
        }
        return out
    }
}

/// A dry run: the classifier over a trace, and the session's own rules (``SessionCore``) over its
/// changes and the events, with everything they decide as JSON lines in time order. The trace
/// answers the motion fallback (the physical orientation), and the device orientation comes back
/// when the lock is switched off, as the sensor does on a device.
public enum DryRun {
    public static func run(
        samples: [GravitySample], classifier parameters: OrientationClassifier.Parameters,
        policy configuration: PolicyConfiguration, display: DisplayAbilities, locked: Bool,
        events: [TimedEvent], explain: Bool, emit: @escaping (String) -> Void
    ) throws(PolicyConfigurationError) {
        var session = Shell(
            core: try SessionCore(policy: configuration, locked: locked, display: display), explain: explain,
            emit: emit)
        var classifier = OrientationClassifier(parameters: parameters)
        let start = samples.first?.t ?? events.first?.t ?? 0
        session.start(at: start)
        var pending = events.map { e in TimedEvent(t: e.t.isFinite ? e.t : start, event: e.event, line: e.line) }[...]
        func deliver(upTo t: Double) {
            while let e = pending.first, e.t <= t {
                pending.removeFirst()
                session.feed(e.event, at: e.t)
            }
        }
        for s in samples {
            deliver(upTo: s.t)
            guard let change = classifier.feed(s) else { continue }
            session.feed(SessionInput.tick, at: change.t)  // transitions that ended before it, in time order
            let locked = session.core.policy.locked
            emit(ReplayRun.jsonLine(change, explain: explain, locked: locked))
            session.physical = change.orientation
            session.feed(locked ? SessionInput.motion(change.orientation) : .device(change.orientation), at: change.t)
        }
        deliver(upTo: .infinity)
        // Let the last transition end so no queued command is lost.
        session.feed(SessionInput.tick, at: Double.infinity)
    }

    /// The dry run's shell around the session core: effects are printed, and the sensor's side of
    /// them is answered from the trace at once.
    struct Shell {
        var core: SessionCore
        let explain: Bool
        let emit: (String) -> Void
        /// The device's orientation in the trace so far: what the motion fallback would measure.
        var physical = DeviceOrientation.unknown

        mutating func start(at t: Double) { perform(core.start(at: t), at: t) }

        mutating func feed(_ input: SessionInput, at t: Double) { perform(core.handle(input, at: t), at: t) }

        private mutating func perform(_ effects: [SessionEffect], at t: Double) {
            var queue = effects[...]
            while let effect = queue.popFirst() {
                switch effect {
                case .policy(let output):
                    if let line = DryRun.line(for: output, explain: explain) { emit(line) }
                case .measureMotion:
                    queue += core.handle(.motion(physical), at: t)
                case .sensorLock(false):
                    // The sensor reads again after the lock and reports the device orientation.
                    queue += core.handle(.device(physical), at: t)
                default:
                    break
                }
            }
        }
    }

    /// The JSON line for a policy output: decisions always; transitions and suggestions with `explain`.
    static func line(for output: PolicyOutput, explain: Bool) -> String? {
        switch output {
        case .decision(let d):
            return d.jsonLine(time: "\(d.t)", cause: explain)
        case .willRotate(let tr) where explain:
            return JSONLine.encode(TransitionRecord(.willRotate, tr, at: tr.start))
        case .didRotate(let tr, let at) where explain:
            return JSONLine.encode(TransitionRecord(.didRotate, tr, at: at))
        case .suggestion(let s, let at) where explain:
            return JSONLine.encode(SuggestionRecord(t: at, interface: s))
        default:
            return nil
        }
    }
}
