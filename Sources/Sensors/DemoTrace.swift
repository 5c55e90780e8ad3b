public import OrientationCore
internal import RealModule

/// The built-in demo trace: a scripted session of turns, a shake, a walk, lying flat and leaning
/// back, rendered as noisy accelerometer samples, so the detector can be shown without hardware.
public enum DemoTrace {
    /// One step of the script.
    public struct Step: Sendable, Hashable {
        /// When the step starts (s from the start of the trace).
        public var start: Double
        /// What happens, in plain words.
        public var label: String
    }

    /// An attitude: the direction of the measured "up" in the device frame, as a plane angle
    /// (clockwise from the top edge, °) and a tilt out of the screen plane (°, + is face up).
    struct Pose {
        var angle: Double
        var tilt: Double
    }

    enum Move {
        case hold(Pose, seconds: Double, String)
        case turn(to: Pose, seconds: Double, String)
        case shake(seconds: Double, amplitude: Double, hertz: Double, String)
    }

    static let script: [Move] = [
        .hold(Pose(angle: 0, tilt: 15), seconds: 4, "held in portrait"),
        .turn(to: Pose(angle: 90, tilt: 15), seconds: 0.8, "turned to the left (right edge up)"),
        .hold(Pose(angle: 90, tilt: 15), seconds: 4, "held in landscape"),
        .shake(seconds: 2.5, amplitude: 14, hertz: 5, "shaken hard"),
        .hold(Pose(angle: 90, tilt: 15), seconds: 2.5, "held in landscape again"),
        .turn(to: Pose(angle: 90, tilt: 88), seconds: 0.6, "laid flat on a table, screen up"),
        .hold(Pose(angle: 90, tilt: 88), seconds: 4, "lying flat"),
        .turn(to: Pose(angle: 88, tilt: 20), seconds: 0.8, "picked up again in landscape"),
        .hold(Pose(angle: 88, tilt: 20), seconds: 3, "held in landscape"),
        .turn(to: Pose(angle: 50, tilt: 20), seconds: 1.5, "turned slowly to the 45° boundary"),
        .hold(Pose(angle: 50, tilt: 20), seconds: 4, "resting near the boundary"),
        .turn(to: Pose(angle: 0, tilt: 20), seconds: 0.8, "turned back to portrait"),
        .hold(Pose(angle: 0, tilt: 20), seconds: 3, "held in portrait"),
        .turn(to: Pose(angle: 0, tilt: 65), seconds: 1.5, "leaned back 65° on a stand"),
        .hold(Pose(angle: 0, tilt: 65), seconds: 4, "resting on the stand"),
        .turn(to: Pose(angle: -180, tilt: 10), seconds: 0.7, "flipped upside down"),
        .hold(Pose(angle: -180, tilt: 10), seconds: 3, "held upside down"),
        .turn(to: Pose(angle: -90, tilt: 10), seconds: 0.7, "turned to the right (left edge up)"),
        .hold(Pose(angle: -90, tilt: 10), seconds: 3, "held in landscape"),
    ]

    /// The script's steps with their start times.
    public static var steps: [Step] {
        var t = 0.0
        return script.map { move in
            let step: Step
            switch move {
            case .hold(_, let s, let label), .turn(_, let s, let label), .shake(let s, _, _, let label):
                step = Step(start: t, label: label)
                t += s
            }
            return step
        }
    }

    /// Renders the script at `rate` samples per second with seeded noise (the same every run).
    public static func samples(rate: Double = 50, seed: UInt64 = 1) -> [GravitySample] {
        var rng = SplitMix64(seed: seed)
        var out: [GravitySample] = []
        var t = 0.0
        var pose = Pose(angle: 0, tilt: 15)
        let dt = 1 / rate
        let g = 9.81
        for move in script {
            let (seconds, target): (Double, Pose) = switch move {
            case .hold(let p, let s, _): (s, p)
            case .turn(let p, let s, _): (s, p)
            case .shake(let s, _, _, _): (s, pose)
            }
            let from = pose
            let end = t + seconds
            var local = 0.0
            while t < end {
                // Smooth-step interpolation for turns, exact pose for holds.
                let u = min(1, local / seconds)
                let w = u * u * (3 - 2 * u)
                var p = Pose(angle: from.angle + (target.angle - from.angle) * w,
                             tilt: from.tilt + (target.tilt - from.tilt) * w)
                var extra = (x: 0.0, y: 0.0, z: 0.0)
                if case .shake(_, let amplitude, let hertz, _) = move {
                    let phase = 2 * Double.pi * hertz * local
                    extra = (amplitude * Double.sin(phase), 0.6 * amplitude * Double.cos(1.3 * phase), 0.3 * amplitude * Double.sin(0.7 * phase))
                    p.angle += 12 * Double.sin(phase * 0.5)
                }
                let a = p.angle * .pi / 180, b = p.tilt * .pi / 180
                let noise = 0.05
                out.append(GravitySample(
                    t: t,
                    x: g * Double.cos(b) * Double.sin(a) + extra.x + noise * rng.gaussian(),
                    y: g * Double.cos(b) * Double.cos(a) + extra.y + noise * rng.gaussian(),
                    z: g * Double.sin(b) + extra.z + noise * rng.gaussian()))
                t += dt
                local += dt
            }
            pose = target
        }
        return out
    }
}

/// A small seeded generator (SplitMix64), so demo and test data are the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A standard normal value (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(Double.leastNonzeroMagnitude, Double.random(in: 0..<1, using: &self))
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
    }
}
