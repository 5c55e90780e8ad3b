public import OrientationCore

/// The product demo that `upright demo` plays: the sensor's script and, at the start of some
/// steps, a command (the full-screen hotkey, the lock), with a snapshot at the end of each step.
public enum ProductDemo {
    public struct Step: Sendable, Hashable {
        public var label: String
        public var start: Double
        public var end: Double
        /// The action asked for at the step's start, as the hotkey would.
        public var action: Action?
    }

    /// The sensor's script (angles: 90 is the right edge up, so the interface turns to landscape-right).
    public static let script: TraceScript = {
        typealias Pose = TraceScript.Pose
        let portrait = Pose(angle: 0, tilt: 15), landscape = Pose(angle: 90, tilt: 15)
        var s = TraceScript(start: portrait)
        s.add(.hold(portrait, seconds: 3), "portrait: the video inline, the status line on top")
        s.add(.turn(to: landscape, seconds: 0.8), "turned to landscape")
        s.add(.hold(landscape, seconds: 2.5), "held in landscape: the inline layout stays portrait")
        s.add(.hold(landscape, seconds: 2.5), "full-screen hotkey: the video turns to landscape")
        s.add(.hold(landscape, seconds: 2), "full-screen hotkey again: back to portrait inline")
        s.add(.hold(landscape, seconds: 1.5), "rotation lock on")
        s.add(.hold(landscape, seconds: 2.5), "full-screen hotkey while locked: forced to landscape")
        s.add(.hold(landscape, seconds: 2), "rotation lock off")
        s.add(.turn(to: Pose(angle: 90, tilt: 88), seconds: 0.6), "laid flat on a table")
        s.add(.hold(Pose(angle: 90, tilt: 88), seconds: 2.5), "lying flat: nothing turns")
        s.add(.turn(to: portrait, seconds: 0.8), "picked up in portrait")
        s.add(.hold(portrait, seconds: 2.5), "full-screen hotkey: back to portrait inline")
        return s
    }()

    /// Commands by step index.
    static let actions: [Int: Action] = [
        3: .fullscreen, 4: .fullscreen, 5: .lock, 6: .fullscreen, 7: .unlock, 11: .fullscreen,
    ]

    /// The steps with their times and commands; the turns (no snapshot of their own) are left out.
    public static var steps: [Step] {
        let all = script.steps
        return all.enumerated().compactMap { i, s in
            if case .turn = s.move { return nil }
            let end = i + 1 < all.count ? all[i + 1].start : script.duration
            return Step(label: s.label, start: s.start, end: end, action: actions[i])
        }
    }

    /// The sensor samples at 50 Hz (the same every run).
    public static func samples() -> [GravitySample] {
        var sampling = TraceScript.Sampling()
        sampling.rate = 50
        sampling.noise = 0.05
        return script.samples(sampling)
    }
}
