import Foundation
public import OrientationCore

/// One timed input of a dry run, from the events file.
public struct TimedEvent: Sendable, Hashable {
    public var t: Double
    public var event: PolicyEvent
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
            func orientation() throws(CLIFailure) -> InterfaceOrientation {
                guard let s = object.orientation, let o = InterfaceOrientation(name: s) else {
                    throw fail(
                        "\"\(name)\" needs \"orientation\": one of "
                            + InterfaceOrientation.allNames.joined(separator: ", "))
                }
                return o
            }
            func scene() throws(CLIFailure) -> String {
                guard let s = object.scene, !s.isEmpty else { throw fail("\"\(name)\" needs \"scene\"") }
                return s
            }
            let event: PolicyEvent
            switch name {
            case "fullscreen": event = .command(.fullscreen)
            case "lock": event = .command(.lock)
            case "unlock": event = .command(.unlock)
            case "toggle-lock": event = .command(.toggleLock)
            case "rotate-to": event = .command(.rotateTo(try orientation()))
            case "accept-suggestion": event = .command(.acceptSuggestion)
            case "push": event = .command(.push(try scene()))
            case "pop": event = .command(.pop)
            case "present": event = .command(.present(try scene()))
            case "dismiss": event = .command(.dismiss)
            case "display":
                let rotate = object.can_rotate ?? false, owns = object.owns ?? true
                event = .display(DisplayAbilities(canRotateOutput: rotate, ownsOutput: owns))
            default:
                throw fail(
                    "unknown command '\(name)'; expected one of: fullscreen, lock, unlock, toggle-lock, "
                        + "rotate-to, accept-suggestion, push, pop, present, dismiss, display")
            }
            out.append(TimedEvent(t: t, event: event, line: i + 1))
        }
        return out
    }
}

/// A dry run: the classifier over a trace and the policy over its changes and the events, with
/// everything they decide as JSON lines in time order. While locked the trace answers the motion
/// fallback (the physical orientation), as the sensor does on a device.
public enum DryRun {
    public static func run(
        samples: [GravitySample], classifier parameters: OrientationClassifier.Parameters,
        policy configuration: PolicyConfiguration, display: DisplayAbilities, locked: Bool,
        events: [TimedEvent], explain: Bool, emit: (String) -> Void
    ) throws(PolicyConfigurationError) {
        var policy = try OrientationPolicy(configuration: configuration, display: display, locked: locked)
        var classifier = OrientationClassifier(parameters: parameters)
        let start = samples.first?.t ?? events.first?.t ?? 0
        var physical = DeviceOrientation.unknown
        func say(_ outputs: [PolicyOutput]) {
            for o in outputs { if let line = line(for: o, policy: policy, explain: explain) { emit(line) } }
        }
        say(policy.start(at: start))
        var pending = events.map { e in TimedEvent(t: e.t.isFinite ? e.t : start, event: e.event, line: e.line) }[...]
        func deliver(upTo t: Double) {
            while let e = pending.first, e.t <= t {
                pending.removeFirst()
                say(policy.handle(e.event, at: e.t))
                // The sensor side of the lock: the motion fallback answers at once when locked, and the
                // device orientation comes back when unlocked.
                if case .command(let c) = e.event {
                    if policy.locked, c == .lock || c == .toggleLock || c == .fullscreen {
                        say(policy.handle(.motion(physical), at: e.t))
                    } else if !policy.locked, c == .unlock || c == .toggleLock {
                        say(policy.handle(.device(physical), at: e.t))
                    }
                }
            }
        }
        for s in samples {
            deliver(upTo: s.t)
            guard let change = classifier.feed(s) else { continue }
            say(policy.advance(to: change.t))  // transitions that ended before it, in time order
            var line = ReplayRun.jsonLine(change, explain: explain)
            if policy.locked { line.insert(contentsOf: ", \"locked\": true", at: line.index(before: line.endIndex)) }
            emit(line)
            physical = change.orientation
            say(policy.handle(policy.locked ? .motion(change.orientation) : .device(change.orientation), at: change.t))
        }
        deliver(upTo: .infinity)
        // Let the last transition end so no queued command is lost.
        say(policy.advance(to: .infinity))
    }

    /// The JSON line for a policy output: decisions always; transitions and suggestions with `explain`.
    static func line(for output: PolicyOutput, policy: OrientationPolicy, explain: Bool) -> String? {
        switch output {
        case .decision(let d):
            return d.jsonLine(time: "\(d.t)", cause: explain)
        case .willRotate(let tr) where explain:
            return transitionLine("will-rotate", tr, at: tr.start)
        case .didRotate(let tr, let at) where explain:
            return transitionLine("did-rotate", tr, at: at)
        case .suggestion(let s, let at) where explain:
            return "{\"t\": \(at), \"event\": \"suggestion\", \"interface\": " + (s.map { "\"\($0)\"" } ?? "null") + "}"
        default:
            return nil
        }
    }

    static func transitionLine(_ event: String, _ tr: Transition, at t: Double) -> String {
        "{\"t\": \(t), \"event\": \"\(event)\", \"from\": \"\(tr.from)\", \"to\": \"\(tr.to)\", "
            + "\"strategy\": \"\(tr.strategy.rawValue)\", \"duration\": \(tr.duration)}"
    }
}
