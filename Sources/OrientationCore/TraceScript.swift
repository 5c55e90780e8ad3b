internal import RealModule

/// A scripted movement of a device, rendered as accelerometer samples: the built-in demo, the
/// tests and anyone who wants a trace without hardware.
public struct TraceScript: Sendable {
    /// An attitude: the measured "up" in the device frame as a plane angle (clockwise from the top
    /// edge as the viewer sees it, °: 0 portrait, 90 landscape-left, 180 upside down, −90
    /// landscape-right) and a tilt out of the screen plane (°: +90 face up, −90 face down).
    public struct Pose: Sendable, Hashable {
        public var angle: Double
        public var tilt: Double
        public init(angle: Double, tilt: Double) {
            self.angle = angle
            self.tilt = tilt
        }
    }

    /// One step of a script.
    public enum Move: Sendable, Hashable {
        /// Stay at a pose.
        case hold(Pose, seconds: Double)
        /// Turn smoothly to a pose.
        case turn(to: Pose, seconds: Double)
        /// Shake: sinusoidal acceleration of `amplitude` m/s² at `hertz`, with a ±12° wobble.
        case shake(seconds: Double, amplitude: Double, hertz: Double)
        /// Free fall: |a| near zero, tumbling.
        case freeFall(seconds: Double)
        /// Walking: a vertical bounce of `amplitude` m/s² at 2 Hz with a little sway.
        case walk(seconds: Double, amplitude: Double)

        var seconds: Double {
            switch self {
            case .hold(_, let s), .turn(_, let s), .shake(let s, _, _), .freeFall(let s), .walk(let s, _): s
            }
        }
    }

    /// A move with the words that describe it.
    public struct Step: Sendable, Hashable {
        public var move: Move
        public var label: String
        /// When the step starts (s from the start of the script).
        public var start: Double
    }

    public private(set) var steps: [Step] = []
    /// The pose the script starts in.
    public var initial: Pose

    public init(start initial: Pose) { self.initial = initial }

    /// Appends a move.
    public mutating func add(_ move: Move, _ label: String = "") {
        steps.append(Step(move: move, label: label, start: duration))
    }

    /// The script's length in seconds.
    public var duration: Double { steps.last.map { $0.start + $0.move.seconds } ?? 0 }

    /// How the script is sampled.
    public struct Sampling: Sendable, Hashable {
        /// Samples per second.
        public var rate: Double = 50
        /// Each interval varies by up to this fraction of the period.
        public var jitter: Double = 0
        /// Fraction of samples dropped at random.
        public var drop: Double = 0
        /// Gaussian noise on each axis, m/s² rms.
        public var noise: Double = 0.03
        /// The magnitude of gravity the sensor measures, m/s².
        public var gravity: Double = 9.81
        /// Time of the first sample.
        public var t0: Double = 0
        public var seed: UInt64 = 1
        public init() {}
    }

    /// Renders the script as samples (the same samples for the same sampling and seed).
    public func samples(_ sampling: Sampling = Sampling()) -> [GravitySample] {
        var rng = SplitMix64(seed: sampling.seed)
        var out: [GravitySample] = []
        let g = sampling.gravity
        let period = 1 / sampling.rate
        var pose = initial
        var t = 0.0
        for step in steps {
            let from = pose
            let target: Pose =
                if case .hold(let p, _) = step.move { p } else if case .turn(let p, _) = step.move { p } else { pose }
            let seconds = step.move.seconds
            let end = step.start + seconds
            while t < end {
                let local = t - step.start
                let u = seconds > 0 ? min(1, local / seconds) : 1
                let w = u * u * (3 - 2 * u)
                var p = Self.between(from, target, w)
                var extra = (x: 0.0, y: 0.0, z: 0.0)
                var gain = 1.0
                switch step.move {
                case .shake(_, let amplitude, let hertz):
                    let phase = 2 * Double.pi * hertz * local
                    extra = (
                        amplitude * Double.sin(phase), 0.6 * amplitude * Double.cos(1.3 * phase),
                        0.3 * amplitude * Double.sin(0.7 * phase)
                    )
                    p.angle += 12 * Double.sin(0.5 * phase)
                case .freeFall:
                    gain = 0.03
                    p.angle += 400 * local
                    p.tilt = 60 * Double.sin(7 * local)
                case .walk(_, let amplitude):
                    let phase = 2 * Double.pi * 2 * local
                    extra.y = amplitude * Double.sin(phase)
                    extra.z = 0.4 * amplitude * Double.sin(phase + 1)
                    p.angle += 4 * Double.sin(0.5 * phase)
                case .hold, .turn:
                    break
                }
                if Double.random(in: 0..<1, using: &rng) >= sampling.drop {
                    let a = p.angle * .pi / 180, b = p.tilt * .pi / 180
                    out.append(
                        GravitySample(
                            t: sampling.t0 + t,
                            x: gain * g * Double.cos(b) * Double.sin(a) + extra.x + sampling.noise * rng.gaussian(),
                            y: gain * g * Double.cos(b) * Double.cos(a) + extra.y + sampling.noise * rng.gaussian(),
                            z: gain * g * Double.sin(b) + extra.z + sampling.noise * rng.gaussian()))
                }
                t += period * (1 + sampling.jitter * Double.random(in: -1...1, using: &rng))
            }
            pose = target
        }
        return out
    }
}

extension TraceScript {
    /// The pose a fraction `w` of the way from `a` to `b`. Turns in the screen plane interpolate the
    /// angle (so a half turn goes round, not over the top); a turn to or from lying flat follows the
    /// great circle, as a hand laying a device down or picking it up does.
    static func between(_ a: Pose, _ b: Pose, _ w: Double) -> Pose {
        guard max(abs(a.tilt), abs(b.tilt)) >= 60 else {
            return Pose(angle: a.angle + (b.angle - a.angle) * w, tilt: a.tilt + (b.tilt - a.tilt) * w)
        }
        func vector(_ p: Pose) -> (Double, Double, Double) {
            let x = p.angle * .pi / 180, y = p.tilt * .pi / 180
            return (Double.cos(y) * Double.sin(x), Double.cos(y) * Double.cos(x), Double.sin(y))
        }
        let u = vector(a), v = vector(b)
        let dot = max(-1, min(1, u.0 * v.0 + u.1 * v.1 + u.2 * v.2))
        let omega = Double.acos(dot)
        let (s, t): (Double, Double) =
            omega < 1e-6
            ? (1 - w, w)
            : (Double.sin((1 - w) * omega) / Double.sin(omega), Double.sin(w * omega) / Double.sin(omega))
        let x = s * u.0 + t * v.0, y = s * u.1 + t * v.1, z = s * u.2 + t * v.2
        let n = (x * x + y * y + z * z).squareRoot()
        // Keep the angle continuous with the start so that later plane turns do not jump by 360°.
        var angle = Double.atan2(y: x, x: y) * 180 / .pi
        while angle - a.angle > 180 { angle -= 360 }
        while a.angle - angle > 180 { angle += 360 }
        return Pose(angle: angle, tilt: Double.asin(max(-1, min(1, z / n))) * 180 / .pi)
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
