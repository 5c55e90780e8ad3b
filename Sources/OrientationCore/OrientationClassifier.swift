internal import RealModule

/// Turns timestamped gravity samples into device-orientation reports.
///
/// A state machine over the full sample stream; time comes only from the samples, so the same
/// trace always gives the same reports. Each sample goes through five steps:
///
/// 1. **Filter.** A first-order low-pass of the whole vector with time constant
///    ``Parameters/filterTimeConstant``, its weight taken from the real interval between samples,
///    so 10 Hz and 100 Hz streams, jitter and dropped samples all filter the same way. A gap longer
///    than ``Parameters/maxGap`` restarts the filter at the next sample, and so does a reading at
///    rest (no motion) more than 60° from the filtered direction: the attitude changed between two
///    readings, and waiting for the filter would only delay the report (settling still needs it to
///    hold, and between polls two readings to agree; see ``settleDeadline``).
/// 2. **Motion.** A raw sample whose length is further than ``Parameters/accelerationTolerance``
///    (a fraction of g) from g, or shorter than ``Parameters/freeFallMagnitude``, is motion: a shake,
///    a step, a tap, a bump, a pothole, a toss. No change is committed until the stream has been free
///    of motion for ``Parameters/quietTime``. A hand turning the device keeps |a| close to g, so real
///    rotations are not held back.
/// 3. **Attitude.** The filtered vector's tilt out of the screen plane decides flat or upright. It is
///    face up or face down beyond ``Parameters/faceEnterTilt`` and stays so until it comes back under
///    ``Parameters/faceExitTilt``; below that limit the device is upright, however far it leans back.
/// 4. **Zones with hysteresis.** Upright, the in-plane angle picks one of four 90° sectors. The
///    current orientation is kept until the angle is more than 45° + ``Parameters/hysteresis`` from its
///    centre or within 45° − hysteresis of another orientation's centre, so a device resting near a
///    45° boundary never flaps. Picked up from flat, the last upright orientation is kept within
///    45° + hysteresis/2 of its centre, so laying a landscape tablet down and lifting it again does not
///    snap to portrait. Before the first report the nearest orientation is taken once the angle is
///    within 45° − ``Parameters/initialMargin`` of its centre.
/// 5. **Settle.** A new candidate becomes the report once it has held for ``Parameters/settleTime``
///    with the filtered direction turning slower than ``Parameters/maxTurnRate`` throughout, and the
///    stream quiet; so a quick half turn is reported once, at its end.
///
/// **While the device moves** (walking, running, a vehicle, a bag), the stream is rarely quiet for
/// long, so steps 2 and 5 alone would hold the report for as long as the motion lasts. The share of
/// recent samples that are motion, averaged over ``Parameters/motionLevelTime``, tells a device that
/// keeps moving from one that was turned once; above ``Parameters/movingLevel`` (or within the quiet
/// time of the last motion) the device counts as moving, and then:
/// - gravity is the output of a second, slower filter (two first-order stages of
///   ``Parameters/motionFilterTimeConstant`` each), through which steps and sways average out while a
///   turn of the hand still comes through within about a second;
/// - its length must be within ``Parameters/movingTolerance`` of g (a toss or a fall is no reading);
/// - a candidate is committed once it has held for ``Parameters/movingSettleTime`` (a face state for
///   ``Parameters/movingFaceSettleTime``: a device lying flat is rarely moving, a hand that tips a
///   phone back for a moment often is) with that estimate turning slower than
///   ``Parameters/movingMaxTurnRate``: the confidence comes from how stable the estimated direction
///   is, not from the raw magnitude (the first report does not wait for it);
/// - a flat report ends under ``Parameters/movingFaceExitTilt`` rather than
///   ``Parameters/faceExitTilt``, so a phone picked up and carried at a 60-75° lean is upright again.
///
/// The report starts as `unknown` and stays so until the first confident decision; once
/// ``Parameters/firstReportWithin`` has passed since the stream started, the nearest orientation is
/// taken even near a 45° boundary, so there is always a report within two seconds.
public struct OrientationClassifier: Sendable {
    /// Every threshold of the classifier. Angles in degrees, times in seconds.
    public struct Parameters: Sendable, Hashable {
        /// Time constant of the low-pass filter on the gravity vector (s).
        public var filterTimeConstant: Double = 0.05
        /// How long a new orientation must hold, with the stream quiet, before it is reported (s).
        public var settleTime: Double = 0.05
        /// How long after the last motion sample no change is committed (s).
        public var quietTime: Double = 0.25
        /// Motion threshold: a sample whose |a| differs from g by more than this fraction of g.
        public var accelerationTolerance: Double = 0.18
        /// Below this |a| (m/s²) a sample is free fall: motion, and no direction.
        public var freeFallMagnitude: Double = 2.0
        /// Extra angle (°) past the 45° boundary needed to leave the current upright orientation.
        public var hysteresis: Double = 17
        /// Before the first report, the angle (°) short of the 45° boundary needed to decide.
        public var initialMargin: Double = 5
        /// Tilt of the screen out of the vertical (°) beyond which the device is face up or down.
        public var faceEnterTilt: Double = 79
        /// Tilt (°) under which a flat device counts as upright again.
        public var faceExitTilt: Double = 71
        /// A change is committed only while the filtered direction turns slower than this (°/s; in the
        /// screen plane for an upright orientation), so a quick half turn is reported once, at its end,
        /// not also as the quarter turn it passes through.
        public var maxTurnRate: Double = 60
        /// The raw readings' turn rate is measured over windows at least this long (s), so sensor noise
        /// at high sample rates does not look like turning.
        public var turnRateWindow: Double = 0.04
        /// A gap between samples longer than this (s) restarts the filter and any pending change.
        public var maxGap: Double = 1.0
        /// The gravity magnitude the motion test compares with (m/s²).
        public var gravity: Double = standardGravity
        /// Time constant (s) of each of the two stages of the filter that estimates gravity while the
        /// device moves.
        public var motionFilterTimeConstant: Double = 0.25
        /// The share of samples that were motion is averaged over about this long (s).
        public var motionLevelTime: Double = 1.0
        /// Above this share of recent samples in motion (0-1), the device counts as moving.
        public var movingLevel: Double = 0.2
        /// While moving, how long a new upright orientation must hold before it is reported (s).
        public var movingSettleTime: Double = 0.4
        /// While moving, how long face up or face down must hold before it is reported (s).
        public var movingFaceSettleTime: Double = 1.5
        /// While moving, a change is committed only while the gravity estimate turns slower than this
        /// (°/s, over windows of ``movingTurnWindow``).
        public var movingMaxTurnRate: Double = 20
        /// The gravity estimate's turn rate is measured over windows this long (s).
        public var movingTurnWindow: Double = 0.1
        /// While moving, the gravity estimate counts only when its length is within this fraction of g.
        public var movingTolerance: Double = 0.25
        /// While moving, the tilt (°) under which a flat device is upright again.
        public var movingFaceExitTilt: Double = 75
        /// While moving (or stirred), the tilt (°) beyond which a device becomes face up or down: a
        /// hand that carries a phone low sways it across 79° at each step, and only a phone within
        /// 6° of lying flat is face up while it moves.
        public var movingFaceEnterTilt: Double = 84
        /// While moving (or stirred), beyond this tilt (°) an upright orientation is kept: the device
        /// lies too far back for its small in-screen part of gravity, swayed by the steps, to say which
        /// edge is up (Android keeps its rotation beyond 65° of tilt in landscape, 70° in portrait, at
        /// all times).
        public var movingTurnTilt: Double = 65
        /// Above this share of recent samples in motion (0-1), however brief the device's rests
        /// between steps, the face limits, the face settle time and the turn tilt of motion apply: a
        /// device held in a walking hand rests for half a second now and then, one lying on a table
        /// never moves.
        public var stirredLevel: Double = 0.05
        /// After this long (s) from the start of the stream with no report, the nearest orientation is
        /// taken without the initial margin.
        public var firstReportWithin: Double = 1.5

        public init() {}

        /// Every parameter with its configuration name (`settle_time`), in one place for the
        /// configuration reader and writer.
        public static var fields: [(name: String, keyPath: WritableKeyPath<Parameters, Double>)] {
            [
                ("filter_time_constant", \.filterTimeConstant), ("settle_time", \.settleTime),
                ("quiet_time", \.quietTime),
                ("acceleration_tolerance", \.accelerationTolerance), ("free_fall_magnitude", \.freeFallMagnitude),
                ("hysteresis", \.hysteresis), ("initial_margin", \.initialMargin), ("face_enter_tilt", \.faceEnterTilt),
                ("face_exit_tilt", \.faceExitTilt), ("max_turn_rate", \.maxTurnRate),
                ("turn_rate_window", \.turnRateWindow), ("max_gap", \.maxGap), ("gravity", \.gravity),
                ("motion_filter_time_constant", \.motionFilterTimeConstant), ("motion_level_time", \.motionLevelTime),
                ("moving_level", \.movingLevel), ("moving_settle_time", \.movingSettleTime),
                ("moving_face_settle_time", \.movingFaceSettleTime), ("moving_max_turn_rate", \.movingMaxTurnRate),
                ("moving_turn_window", \.movingTurnWindow), ("moving_tolerance", \.movingTolerance),
                ("moving_face_exit_tilt", \.movingFaceExitTilt), ("moving_face_enter_tilt", \.movingFaceEnterTilt),
                ("moving_turn_tilt", \.movingTurnTilt), ("stirred_level", \.stirredLevel),
                ("first_report_within", \.firstReportWithin),
            ]
        }

        /// The problems with these values, as sentences; empty when they are usable.
        public var problems: [String] {
            var out: [String] = []
            func check(_ ok: Bool, _ message: String) { if !ok { out.append(message) } }
            check(filterTimeConstant >= 0, "filter-time-constant must be 0 or more seconds, not \(filterTimeConstant)")
            check(settleTime >= 0, "settle-time must be 0 or more seconds, not \(settleTime)")
            check(quietTime >= 0, "quiet-time must be 0 or more seconds, not \(quietTime)")
            check(accelerationTolerance > 0, "acceleration-tolerance must be above 0, not \(accelerationTolerance)")
            check(freeFallMagnitude >= 0, "free-fall-magnitude must be 0 or more m/s², not \(freeFallMagnitude)")
            check((0..<45).contains(hysteresis), "hysteresis must be at least 0° and under 45°, not \(hysteresis)")
            check(
                (0..<45).contains(initialMargin),
                "initial-margin must be at least 0° and under 45°, not \(initialMargin)")
            check(
                faceEnterTilt > 0 && faceEnterTilt < 90,
                "face-enter-tilt must be between 0° and 90°, not \(faceEnterTilt)")
            check(
                faceExitTilt > 0 && faceExitTilt <= faceEnterTilt,
                "face-exit-tilt must be above 0° and at most face-enter-tilt (\(faceEnterTilt)°), not \(faceExitTilt)")
            check(maxTurnRate > 0, "max-turn-rate must be above 0 °/s, not \(maxTurnRate)")
            check(turnRateWindow >= 0, "turn-rate-window must be 0 or more seconds, not \(turnRateWindow)")
            check(maxGap > 0, "max-gap must be above 0 seconds, not \(maxGap)")
            check(gravity > 0, "gravity must be above 0 m/s², not \(gravity)")
            check(
                motionFilterTimeConstant > 0,
                "motion-filter-time-constant must be above 0 seconds, not \(motionFilterTimeConstant)")
            check(motionLevelTime > 0, "motion-level-time must be above 0 seconds, not \(motionLevelTime)")
            check(movingLevel > 0 && movingLevel < 1, "moving-level must be between 0 and 1, not \(movingLevel)")
            check(movingSettleTime >= 0, "moving-settle-time must be 0 or more seconds, not \(movingSettleTime)")
            check(
                movingFaceSettleTime >= 0,
                "moving-face-settle-time must be 0 or more seconds, not \(movingFaceSettleTime)")
            check(movingMaxTurnRate > 0, "moving-max-turn-rate must be above 0 °/s, not \(movingMaxTurnRate)")
            check(movingTurnWindow > 0, "moving-turn-window must be above 0 seconds, not \(movingTurnWindow)")
            check(
                movingTolerance > 0 && movingTolerance < 1,
                "moving-tolerance must be between 0 and 1, not \(movingTolerance)")
            check(
                movingFaceExitTilt >= faceExitTilt && movingFaceExitTilt <= faceEnterTilt,
                "moving-face-exit-tilt must be between face-exit-tilt (\(faceExitTilt)°) and face-enter-tilt "
                    + "(\(faceEnterTilt)°), not \(movingFaceExitTilt)")
            check(
                movingFaceEnterTilt >= movingFaceExitTilt && movingFaceEnterTilt < 90,
                "moving-face-enter-tilt must be at least moving-face-exit-tilt (\(movingFaceExitTilt)°) and under 90°, "
                    + "not \(movingFaceEnterTilt)")
            check(
                movingTurnTilt > 0 && movingTurnTilt <= 90,
                "moving-turn-tilt must be above 0° and at most 90°, not \(movingTurnTilt)")
            check(
                stirredLevel > 0 && stirredLevel <= 1,
                "stirred-level must be above 0 and at most 1, not \(stirredLevel)")
            check(firstReportWithin >= 0, "first-report-within must be 0 or more seconds, not \(firstReportWithin)")
            return out
        }
    }

    /// Why the report changed: the evidence at the moment of the change.
    public struct Evidence: Sendable, Hashable {
        /// Angle of gravity in the screen plane, clockwise from the top edge as the viewer sees it (°):
        /// 0 portrait, 90 landscape-left, ±180 upside down, −90 landscape-right.
        public var planeAngle: Double
        /// Tilt of the screen out of the vertical (°): 0 upright, +90 face up, −90 face down.
        public var tilt: Double
        /// How long the new orientation had held before it was reported (s).
        public var held: Double
        /// How long the stream had been free of motion (s); infinite when no motion was ever seen.
        public var quiet: Double
        /// True for the first report after `unknown`.
        public var first: Bool
        /// The face limit in force (°), for the explanation.
        public var faceLimit: Double
        /// True when the device was moving and gravity came from the motion filter.
        public var moving: Bool = false
    }

    /// A change of the reported orientation.
    public struct Change: Sendable, Hashable {
        /// The time of the sample that committed the change (trace seconds).
        public var t: Double
        public var orientation: DeviceOrientation
        public var previous: DeviceOrientation
        public var evidence: Evidence

        /// A one-line explanation in plain words.
        public var why: String { evidence.explanation(for: orientation) }
    }

    public let parameters: Parameters

    /// The orientation reported now.
    public private(set) var orientation: DeviceOrientation = .unknown
    /// The last upright orientation reported, kept while the device lies flat.
    public private(set) var lastUpright: DeviceOrientation?
    /// Samples skipped because a value was not finite or time did not advance.
    public private(set) var skippedSamples = 0

    // Filter state.
    private var fx = 0.0, fy = 0.0, fz = 0.0
    private var lastT = -Double.infinity
    private var startT = 0.0  // the first sample of the stream, for firstReportWithin
    private var primed = false
    // Turn rate, measured on the raw readings over windows of at least `turnRateWindow`: a step (a
    // new attitude read at once) is over in one window, while a hand turning keeps every window busy.
    private var ax = 0.0, ay = 0.0, az = 0.0, at = -Double.infinity  // the window's first reading
    private var turningInSpace = false, turningInPlane = false
    private var px = 0.0, py = 0.0, pz = 0.0  // the filtered vector one sample earlier
    // Motion state.
    private var lastMotionT = -Double.infinity
    private var motionLevel = 0.0  // the share of recent samples that were motion, 0-1
    private var moving = false
    /// The device moved lately (``Parameters/stirredLevel``): the face and turn limits of motion
    /// apply, at rest between steps too.
    private var stirred = false
    // The gravity estimate through motion: two first-order stages, and its turn over windows.
    private var s1x = 0.0, s1y = 0.0, s1z = 0.0
    private var gx = 0.0, gy = 0.0, gz = 0.0
    private var wx = 0.0, wy = 0.0, wz = 0.0, wt = -Double.infinity  // the estimate at the window's start
    private var estimateTurning = false
    // Pending change.
    private var pending: DeviceOrientation = .unknown
    private var pendingSince = 0.0
    private var pendingReadings = 0  // readings that agreed on the pending candidate
    private var pendingMoving = false  // decided on the motion filter

    // Thresholds precomputed from the parameters, so the per-sample path has no trigonometry.
    private let cos2Keep: Double  // cos²(45° + hysteresis): still inside the current zone
    private let cos2KeepRemembered: Double  // cos²(45° + hysteresis / 2): the remembered zone, from flat
    private let cos2Enter: Double  // cos²(45° − hysteresis): deep enough inside a new zone
    private let cos2Initial: Double  // cos²(45° − initial margin)
    private let sin2FaceEnter: Double
    private let sin2FaceExit: Double
    private let sin2MovingFaceExit: Double
    private let sin2MovingFaceEnter: Double
    private let sin2MovingTurn: Double
    private let motionLow: Double, motionHigh: Double, freeFall: Double
    private let estimateLow: Double, estimateHigh: Double  // (g(1 ∓ moving tolerance))²
    private let maxTurnRate2: Double  // (max turn rate in rad/s)²
    private let movingTurnRate2: Double  // (moving max turn rate in rad/s)²

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        let rad = Double.pi / 180
        func square(_ v: Double) -> Double { v * v }
        cos2Keep = square(Double.cos((45 + parameters.hysteresis) * rad))
        cos2KeepRemembered = square(Double.cos((45 + parameters.hysteresis / 2) * rad))
        cos2Enter = square(Double.cos((45 - parameters.hysteresis) * rad))
        cos2Initial = square(Double.cos((45 - parameters.initialMargin) * rad))
        sin2FaceEnter = square(Double.sin(parameters.faceEnterTilt * rad))
        sin2FaceExit = square(Double.sin(parameters.faceExitTilt * rad))
        sin2MovingFaceExit = square(Double.sin(parameters.movingFaceExitTilt * rad))
        sin2MovingFaceEnter = square(Double.sin(parameters.movingFaceEnterTilt * rad))
        sin2MovingTurn = square(Double.sin(parameters.movingTurnTilt * rad))
        motionLow = parameters.gravity * (1 - parameters.accelerationTolerance)
        motionHigh = parameters.gravity * (1 + parameters.accelerationTolerance)
        freeFall = parameters.freeFallMagnitude
        estimateLow = square(parameters.gravity * (1 - parameters.movingTolerance))
        estimateHigh = square(parameters.gravity * (1 + parameters.movingTolerance))
        maxTurnRate2 = square(parameters.maxTurnRate * rad)
        movingTurnRate2 = square(parameters.movingMaxTurnRate * rad)
    }

    /// Feeds one sample; returns the change it commits, if any.
    ///
    /// Samples whose values are not finite, or whose time does not advance, are skipped and counted.
    public mutating func feed(_ s: GravitySample) -> Change? {
        guard s.isFinite, s.t > lastT else {
            skippedSamples += 1
            return nil
        }
        let dt = s.t - lastT
        lastT = s.t
        // |a|² of the reading: within the tolerance around g it is at rest, else it is motion.
        let m2 = s.x * s.x + s.y * s.y + s.z * s.z
        let atRest = m2 >= motionLow * motionLow && m2 <= motionHigh * motionHigh
        // The three first-order weights dt / (τ + dt), with one division for the three.
        let a = parameters.filterTimeConstant + dt, b = parameters.motionFilterTimeConstant + dt
        let c = parameters.motionLevelTime + dt
        let r = dt / (a * b * c)
        if !primed || dt > parameters.maxGap {
            restart(at: s)
        } else {
            filter(s, alpha: r * b * c, beta: r * a * c, m2: m2, atRest: atRest)
        }

        if s.t - at >= parameters.turnRateWindow { measureTurn(s) }
        if s.t - wt >= parameters.movingTurnWindow { measureEstimateTurn(at: s.t) }

        let motion = !atRest || m2 < freeFall * freeFall
        if motion { lastMotionT = s.t }
        // The first sample (dt infinite) counts alone.
        motionLevel += (dt.isFinite ? r * a * b : 1) * ((motion ? 1 : 0) - motionLevel)
        moving = s.t - lastMotionT < parameters.quietTime || motionLevel > parameters.movingLevel
        stirred = moving || motionLevel > parameters.stirredLevel

        let candidate = classify()
        if candidate == orientation || candidate == .unknown {
            pending = orientation
            return nil
        }
        // The settle time runs while the candidate stays the same, decided the same way, and the
        // direction is not turning fast. While moving, the first report does not wait for the estimate
        // to hold still: a hard walk sways it faster than the limit, and any report beats none.
        let turning =
            moving ? estimateTurning && orientation != .unknown : isTurning(toward: candidate, dt: dt)
        if candidate != pending || turning || pendingMoving != moving {
            pending = candidate
            pendingSince = s.t
            pendingReadings = 1
            pendingMoving = moving
        } else {
            pendingReadings += 1
        }
        return commitIfSettled(candidate, at: s.t)
    }

    /// Starts the filters again from reading `s` (the first sample, or the first after a gap).
    private mutating func restart(at s: GravitySample) {
        if !primed { startT = s.t }
        fx = s.x; fy = s.y; fz = s.z
        s1x = s.x; s1y = s.y; s1z = s.z
        gx = s.x; gy = s.y; gz = s.z
        primed = true
        pending = orientation
        ax = s.x; ay = s.y; az = s.z; at = s.t
        wx = s.x; wy = s.y; wz = s.z; wt = s.t
        turningInSpace = false; turningInPlane = false; estimateTurning = false
        px = fx; py = fy; pz = fz
        lastMotionT = -Double.infinity
        motionLevel = 0
    }

    /// Moves both filters on by reading `s`, with the quick filter's weight `alpha` and the motion
    /// filter's `beta`.
    private mutating func filter(_ s: GravitySample, alpha: Double, beta: Double, m2: Double, atRest: Bool) {
        px = fx; py = fy; pz = fz
        let f2 = fx * fx + fy * fy + fz * fz
        let dot = s.x * fx + s.y * fy + s.z * fz
        let farApart = dot < 0 || dot * dot < 0.25 * m2 * f2  // cos(angle) < 0.5: over 60°
        if atRest, farApart {
            // A reading at rest more than 60° from the filtered direction: the attitude changed
            // between two readings (a slow poll, a device set down in a new way). The filter
            // starts again from it; the settle time and a second agreeing reading still stand
            // between it and a report.
            fx = s.x; fy = s.y; fz = s.z
        } else {
            fx += alpha * (s.x - fx)
            fy += alpha * (s.y - fy)
            fz += alpha * (s.z - fz)
        }
        s1x += beta * (s.x - s1x)
        s1y += beta * (s.y - s1y)
        s1z += beta * (s.z - s1z)
        gx += beta * (s1x - gx)
        gy += beta * (s1y - gy)
        gz += beta * (s1z - gz)
    }

    /// When the pending candidate would become the report if no other sample came first: its
    /// settle time and the quiet time both over, once two readings have agreed on it (one reading
    /// alone is never reported between polls). `nil` when nothing is pending. A live sensor
    /// polled more slowly than the settle time calls ``advance(to:)`` then, instead of waiting for
    /// the next poll.
    public var settleDeadline: Double? {
        guard pending != orientation, pending != .unknown, pendingReadings >= 2 else { return nil }
        if pendingMoving { return pendingSince + movingSettleTime(for: pending) }
        return max(pendingSince + restSettleTime(for: pending), lastMotionT + parameters.quietTime)
    }

    /// Commits the pending candidate at `t` when its settle time and the quiet time are over, as a
    /// sample repeating the last reading would, without touching the filter (`t` is not a sample:
    /// the next one may still come earlier than `t`).
    public mutating func advance(to t: Double) -> Change? {
        guard primed, t >= lastT, settleDeadline != nil, classify() == pending else { return nil }
        return commitIfSettled(pending, at: t)
    }

    private func movingSettleTime(for candidate: DeviceOrientation) -> Double {
        candidate.isFlat ? parameters.movingFaceSettleTime : parameters.movingSettleTime
    }

    /// At rest: a face state entered while the device is stirred waits as long as one entered moving.
    private func restSettleTime(for candidate: DeviceOrientation) -> Double {
        candidate.isFlat && stirred && !orientation.isFlat ? parameters.movingFaceSettleTime : parameters.settleTime
    }

    private mutating func commitIfSettled(_ candidate: DeviceOrientation, at t: Double) -> Change? {
        if pendingMoving {
            guard t - pendingSince >= movingSettleTime(for: candidate) else { return nil }
        } else {
            guard t - pendingSince >= restSettleTime(for: candidate), t - lastMotionT >= parameters.quietTime else {
                return nil
            }
        }
        let (x, y, z) = pendingMoving ? (gx, gy, gz) : (fx, fy, fz)
        let change = Change(
            t: t, orientation: candidate, previous: orientation,
            evidence: Evidence(
                planeAngle: Double.atan2(y: x, x: y) * 180 / .pi,
                tilt: Double.asin(max(-1, min(1, z / (x * x + y * y + z * z).squareRoot()))) * 180 / .pi,
                held: t - pendingSince, quiet: t - lastMotionT, first: orientation == .unknown,
                faceLimit: faceLimit(moving: pendingMoving), moving: pendingMoving))
        orientation = candidate
        if candidate.isUpright { lastUpright = candidate }
        return change
    }

    /// The face limit in force (°): entering a face state, or leaving one at rest or moving.
    private func faceLimit(moving: Bool) -> Double {
        guard orientation.isFlat else { return stirred ? parameters.movingFaceEnterTilt : parameters.faceEnterTilt }
        return moving ? parameters.movingFaceExitTilt : parameters.faceExitTilt
    }

    /// Closes a turn-rate window at reading `s`: did the readings turn faster than
    /// ``Parameters/maxTurnRate`` since the window's first reading? sin²(angle) = |a × s|² / (|a|²|s|²),
    /// compared with (rate · elapsed)², in space and in the screen plane.
    private mutating func measureTurn(_ s: GravitySample) {
        let elapsed = s.t - at
        let limit = maxTurnRate2 * elapsed * elapsed
        let cz = ax * s.y - ay * s.x
        let cx = ay * s.z - az * s.y, cy = az * s.x - ax * s.z
        turningInPlane = cz * cz > limit * (ax * ax + ay * ay) * (s.x * s.x + s.y * s.y)
        turningInSpace =
            cx * cx + cy * cy + cz * cz
            > limit * (ax * ax + ay * ay + az * az) * (s.x * s.x + s.y * s.y + s.z * s.z)
        ax = s.x; ay = s.y; az = s.z; at = s.t
    }

    /// Closes a window of the gravity estimate at `t`: did it turn faster than
    /// ``Parameters/movingMaxTurnRate`` since the window started? The same test as ``measureTurn(_:)``.
    private mutating func measureEstimateTurn(at t: Double) {
        let elapsed = t - wt
        let limit = movingTurnRate2 * elapsed * elapsed
        let cx = wy * gz - wz * gy, cy = wz * gx - wx * gz, cz = wx * gy - wy * gx
        estimateTurning =
            cx * cx + cy * cy + cz * cz > limit * (wx * wx + wy * wy + wz * wz) * (gx * gx + gy * gy + gz * gz)
        wx = gx; wy = gy; wz = gz; wt = t
    }

    /// True while the device is turning faster than ``Parameters/maxTurnRate``: the filtered direction
    /// turned that fast over the last sample (sin²(step) = |p × f|² / (|p|²|f|²) against (rate · dt)²,
    /// without a root or a division) *and* so did the raw readings over the last window. The filter
    /// alone would still be catching up after a step (an attitude read at once), and the raw readings
    /// alone are noisy. The turn in space always counts; for an upright candidate the turn in the
    /// screen plane counts too (a half turn with the device leaning back turns fast in the plane but
    /// slowly in space).
    @inline(__always)
    private func isTurning(toward candidate: DeviceOrientation, dt: Double) -> Bool {
        let cz = px * fy - py * fx
        let limit = maxTurnRate2 * dt * dt
        if candidate.isUpright, turningInPlane, cz * cz > limit * (px * px + py * py) * (fx * fx + fy * fy) {
            return true
        }
        guard turningInSpace else { return false }
        let cx = py * fz - pz * fy, cy = pz * fx - px * fz
        let cross2 = cx * cx + cy * cy + cz * cz
        let norms2 = (px * px + py * py + pz * pz) * (fx * fx + fy * fy + fz * fz)
        return cross2 > limit * norms2
    }

    /// The orientation gravity points to now: the quick filter's at rest, the motion filter's while
    /// moving (`unknown` when its length is no reading of gravity).
    @inline(__always)
    private func classify() -> DeviceOrientation {
        guard moving else {
            return classify(
                x: fx, y: fy, z: fz, faceEnter2: stirred ? sin2MovingFaceEnter : sin2FaceEnter, faceExit2: sin2FaceExit,
                turn2: stirred ? sin2MovingTurn : 1)
        }
        let g2 = gx * gx + gy * gy + gz * gz
        guard g2 >= estimateLow, g2 <= estimateHigh else { return .unknown }
        return classify(
            x: gx, y: gy, z: gz, faceEnter2: sin2MovingFaceEnter, faceExit2: sin2MovingFaceExit, turn2: sin2MovingTurn)
    }

    /// The orientation a vector points to, with hysteresis against the current report; `unknown`
    /// when it cannot tell (free fall, or near a boundary before the first report).
    @inline(__always)
    private func classify(
        x fx: Double, y fy: Double, z fz: Double, faceEnter2: Double, faceExit2: Double, turn2: Double
    ) -> DeviceOrientation {
        // Every test compares squares, so the per-sample path needs no square root.
        let h2 = fx * fx + fy * fy
        let m2 = h2 + fz * fz
        if m2 < freeFall * freeFall { return .unknown }
        let sin2Limit = orientation.isFlat ? faceExit2 : faceEnter2
        if fz * fz >= m2 * sin2Limit { return fz > 0 ? .faceUp : .faceDown }
        // Lying far back while moving: the upright orientation held (or the one remembered) stays.
        if turn2 < 1, fz * fz > m2 * turn2, let kept = orientation.isUpright ? orientation : lastUpright {
            return kept
        }

        // The nearest orientation: the axis with the largest in-plane component.
        let nearest: DeviceOrientation
        let along: Double
        if abs(fx) > abs(fy) {
            nearest = fx > 0 ? .landscapeLeft : .landscapeRight
            along = abs(fx)
        } else {
            nearest = fy >= 0 ? .portrait : .portraitUpsideDown
            along = abs(fy)
        }
        guard let reference = orientation.isUpright ? orientation : lastUpright else {
            // Before the first report: clear of the boundary, or the nearest once it is due.
            let due = lastT - startT >= parameters.firstReportWithin
            return due || along * along >= h2 * cos2Initial ? nearest : .unknown
        }
        if nearest == reference || along * along >= h2 * cos2Enter { return nearest }
        // Still inside the reference zone widened by the hysteresis (cos(45° + h) > 0)? Else the nearest.
        // Coming up from flat, the remembered orientation gets half the hysteresis, so the pick-up is
        // never decided right at the edge where the next sample would turn it again.
        let c = Self.component(of: reference, x: fx, y: fy)
        let keep = orientation.isUpright ? cos2Keep : cos2KeepRemembered
        return c > 0 && c * c >= h2 * keep ? reference : nearest
    }

    /// The in-plane component of (x, y) along an upright orientation's "up" direction.
    private static func component(of orientation: DeviceOrientation, x: Double, y: Double) -> Double {
        switch orientation {
        case .portrait: y
        case .portraitUpsideDown: -y
        case .landscapeLeft: x
        case .landscapeRight: -x
        case .unknown, .faceUp, .faceDown: 0
        }
    }
}

extension OrientationClassifier.Evidence {
    /// A sentence that says why `orientation` was reported.
    public func explanation(for orientation: DeviceOrientation) -> String {
        let head = first ? "first confident reading" : "held"
        let quietText =
            moving
            ? "moving: gravity estimated through the motion, steady"
            : quiet.isFinite ? "no motion for \(fmt(quiet)) s" : "no motion seen"
        if orientation.isFlat {
            return "\(head): tilt \(fmt(tilt, 0))° is beyond the \(fmt(faceLimit, 0))° face limit "
                + "for \(fmt(held)) s, \(quietText)"
        }
        return "\(head): plane angle \(fmt(planeAngle, 0))° points to \(orientation) and tilt \(fmt(tilt, 0))° "
            + "is under the \(fmt(faceLimit, 0))° face limit for \(fmt(held)) s, \(quietText)"
    }
}

/// Formats a number with a fixed count of decimals, without Foundation.
func fmt(_ value: Double, _ decimals: Int = 2) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int(rounded / scale)
    let frac = Int(rounded - Double(whole) * scale)
    var text = String(whole)
    if decimals > 0 {
        let f = String(frac)
        text += "." + String(repeating: "0", count: decimals - f.count) + f
    }
    return (value < 0 && rounded != 0 ? "-" : "") + text
}

extension OrientationClassifier {
    /// The orientation one steady reading points to, with a confidence from 0 to 1, without
    /// hysteresis or settling: for the motion fallback, which samples a short burst while the
    /// rotation lock is on. The confidence falls toward the 45° boundaries and the face limit, and
    /// when |a| is far from g.
    public static func snapshot(x: Double, y: Double, z: Double, parameters p: Parameters = Parameters())
        -> (orientation: DeviceOrientation, confidence: Double)
    {
        let m = (x * x + y * y + z * z).squareRoot()
        guard m >= p.freeFallMagnitude, m.isFinite else { return (.unknown, 0) }
        let magnitude = max(0, 1 - abs(m - p.gravity) / (p.gravity * 0.5))
        let tilt = Double.asin(max(-1, min(1, z / m))) * 180 / .pi
        if abs(tilt) >= p.faceEnterTilt {
            let c = 0.5 + 0.5 * min(1, (abs(tilt) - p.faceEnterTilt) / max(1, 90 - p.faceEnterTilt))
            return (tilt > 0 ? .faceUp : .faceDown, c * magnitude)
        }
        let angle = Double.atan2(y: x, x: y) * 180 / .pi  // 0 portrait, 90 landscape-left
        let k = Int(((angle + 45).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 90)
        let orientation: DeviceOrientation = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight][k]
        var off = abs(angle - Double(k) * 90).truncatingRemainder(dividingBy: 360)
        if off > 180 { off = 360 - off }
        let boundary = min(1, (45 - off) / 30)
        let upright = min(1, (p.faceEnterTilt - abs(tilt)) / 15)
        return (orientation, max(0, boundary) * max(0, upright) * magnitude)
    }
}
