/// The built-in demo trace: a scripted session of turns, a shake, lying flat, a rest near the 45°
/// boundary and leaning back, so the detector can be shown without hardware.
public enum DemoTrace {
    public typealias Pose = TraceScript.Pose

    /// The script of the demo.
    public static let script: TraceScript = {
        var s = TraceScript(start: Pose(angle: 0, tilt: 15))
        s.add(.hold(Pose(angle: 0, tilt: 15), seconds: 4), "held in portrait")
        s.add(.turn(to: Pose(angle: 90, tilt: 15), seconds: 0.8), "turned to the left (right edge up)")
        s.add(.hold(Pose(angle: 90, tilt: 15), seconds: 4), "held in landscape")
        s.add(.shake(seconds: 2.5, amplitude: 14, hertz: 5), "shaken hard")
        s.add(.hold(Pose(angle: 90, tilt: 15), seconds: 2.5), "held in landscape again")
        s.add(.turn(to: Pose(angle: 90, tilt: 88), seconds: 0.6), "laid flat on a table, screen up")
        s.add(.hold(Pose(angle: 90, tilt: 88), seconds: 4), "lying flat")
        s.add(.turn(to: Pose(angle: 85, tilt: 20), seconds: 0.8), "picked up again in landscape")
        s.add(.hold(Pose(angle: 85, tilt: 20), seconds: 3), "held in landscape")
        s.add(.turn(to: Pose(angle: 50, tilt: 20), seconds: 1.5), "turned slowly to the 45° boundary")
        s.add(.hold(Pose(angle: 50, tilt: 20), seconds: 4), "resting near the boundary")
        s.add(.turn(to: Pose(angle: 0, tilt: 20), seconds: 0.8), "turned back to portrait")
        s.add(.walk(seconds: 4, amplitude: 2.5), "carried while walking")
        s.add(.turn(to: Pose(angle: 0, tilt: 65), seconds: 1.5), "leaned back 65° on a stand")
        s.add(.hold(Pose(angle: 0, tilt: 65), seconds: 4), "resting on the stand")
        s.add(.freeFall(seconds: 0.4), "tossed and caught")
        s.add(.hold(Pose(angle: 0, tilt: 65), seconds: 2), "back on the stand")
        s.add(.turn(to: Pose(angle: -180, tilt: 10), seconds: 0.5), "flipped upside down")
        s.add(.hold(Pose(angle: -180, tilt: 10), seconds: 3), "held upside down")
        s.add(.turn(to: Pose(angle: -90, tilt: 10), seconds: 0.7), "turned to the right (left edge up)")
        s.add(.hold(Pose(angle: -90, tilt: 10), seconds: 3), "held in landscape")
        // Two rare cases: a rest inside the face boundary's band (one report through it), and a
        // tablet handed across a table (one change, no glitch after it).
        s.add(.turn(to: Pose(angle: 0, tilt: 20), seconds: 0.8), "turned back to portrait")
        s.add(.hold(Pose(angle: 0, tilt: 20), seconds: 2), "held in portrait")
        s.add(.turn(to: Pose(angle: 0, tilt: 74), seconds: 1.5), "leaned back onto a steep stand")
        s.add(.turn(to: Pose(angle: 0, tilt: 77.5), seconds: 3), "settling on the stand, 74° to 77.5° of tilt")
        s.add(.turn(to: Pose(angle: 0, tilt: 72.5), seconds: 3), "sliding back to 72.5°")
        s.add(.hold(Pose(angle: 0, tilt: 72.5), seconds: 2), "resting at 72.5°")
        s.add(.turn(to: Pose(angle: 0, tilt: 15), seconds: 1), "picked up in portrait")
        s.add(.hold(Pose(angle: 0, tilt: 15), seconds: 2), "held in portrait")
        s.add(.turn(to: Pose(angle: 0, tilt: 65), seconds: 1), "lowered toward the table")
        s.add(.turn(to: Pose(angle: 90, tilt: 72), seconds: 1), "turned about the vertical, half way")
        s.add(.turn(to: Pose(angle: 180, tilt: 68), seconds: 1), "turned about the vertical to face across")
        s.add(.turn(to: Pose(angle: 150, tilt: 76), seconds: 0.6), "passed over, swinging back a little")
        s.add(.turn(to: Pose(angle: 185, tilt: 60), seconds: 0.6), "taken by the other person")
        s.add(.turn(to: Pose(angle: 180, tilt: 15), seconds: 1), "raised upside down (their portrait)")
        s.add(.hold(Pose(angle: 180, tilt: 15), seconds: 3), "held by the other person")
        return s
    }()

    /// The demo rendered at 50 Hz with a little noise and jitter (the same every run).
    public static func samples() -> [GravitySample] {
        var sampling = TraceScript.Sampling()
        sampling.rate = 50
        sampling.jitter = 0.1
        sampling.noise = 0.05
        return script.samples(sampling)
    }
}
