import Glibc
import OrientationCore
import PropertyBased
import Testing

typealias Pose = TraceScript.Pose

/// Runs a classifier over samples and returns its changes.
func classify(_ samples: [GravitySample], _ parameters: OrientationClassifier.Parameters = .init())
    -> [OrientationClassifier.Change]
{
    var c = OrientationClassifier(parameters: parameters)
    return samples.compactMap { c.feed($0) }
}

func sampling(
    rate: Double = 50, jitter: Double = 0.1, drop: Double = 0, noise: Double = 0.05, seed: UInt64 = 1, t0: Double = 0
) -> TraceScript.Sampling {
    var s = TraceScript.Sampling()
    s.t0 = t0
    s.rate = rate
    s.jitter = jitter
    s.drop = drop
    s.noise = noise
    s.seed = seed
    return s
}

/// The plane angle of each upright orientation's centre.
let centre: [DeviceOrientation: Double] = [
    .portrait: 0, .landscapeLeft: 90, .portraitUpsideDown: 180, .landscapeRight: -90,
]

@Suite("Orientation classifier")
struct ClassifierTests {
    @Test func unknownUntilTheFirstConfidentDecision() {
        var c = OrientationClassifier()
        #expect(c.orientation == .unknown)
        #expect(c.feed(GravitySample(t: 0, x: 0, y: 9.81, z: 0)) == nil)
        #expect(c.orientation == .unknown)
        let change = c.feed(GravitySample(t: 0.2, x: 0, y: 9.81, z: 0))
        #expect(change?.orientation == .portrait)
        #expect(change?.previous == .unknown)
        #expect(change?.evidence.first == true)
    }

    @Test(
        arguments: [DeviceOrientation.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight],
        [10.0, 25, 50, 100])
    func holdsEachUprightOrientation(orientation: DeviceOrientation, rate: Double) {
        var s = TraceScript(start: Pose(angle: centre[orientation]!, tilt: 20))
        s.add(.hold(Pose(angle: centre[orientation]! + 10, tilt: 20), seconds: 5))
        let changes = classify(s.samples(sampling(rate: rate, jitter: 0.2, drop: 0.05)))
        #expect(changes.map(\.orientation) == [orientation])
        #expect(changes[0].t < 0.4)
    }

    @Test func startingNearABoundaryWaitsForAClearReadingThenTakesTheNearest() {
        var s = TraceScript(start: Pose(angle: 44, tilt: 10))
        s.add(.hold(Pose(angle: 44, tilt: 10), seconds: 1.2))
        #expect(classify(s.samples()).isEmpty)
        s.add(.turn(to: Pose(angle: 20, tilt: 10), seconds: 0.2))
        s.add(.hold(Pose(angle: 20, tilt: 10), seconds: 2))
        let cleared = classify(s.samples())
        #expect(cleared.map(\.orientation) == [.portrait])
        #expect(cleared[0].t < 1.6)

        // Left near the boundary: the nearest orientation once the first report is due.
        var stays = TraceScript(start: Pose(angle: 46, tilt: 10))
        stays.add(.hold(Pose(angle: 46, tilt: 10), seconds: 4))
        let due = classify(stays.samples())
        #expect(due.map(\.orientation) == [.landscapeLeft])
        let limit = OrientationClassifier.Parameters().firstReportWithin
        #expect(due[0].t >= limit && due[0].t < limit + 0.1)
    }

    @Test(arguments: [0.3, 0.8, 3.0])
    func followsTurnsPromptly(turnSeconds: Double) {
        var s = TraceScript(start: Pose(angle: 0, tilt: 15))
        s.add(.hold(Pose(angle: 0, tilt: 15), seconds: 2))
        var expected: [DeviceOrientation] = [.portrait]
        var ends: [Double] = []
        // The last step is a half turn: reported once, at its end, not as the quarter turn it passes.
        for o in [
            DeviceOrientation.landscapeLeft, .portraitUpsideDown, .landscapeRight, .portrait, .portraitUpsideDown,
        ] {
            let target = centre[o]!
            let previous = s.steps.last.map { step -> Double in
                if case .hold(let p, _) = step.move { return p.angle }
                return 0
            }!
            // Turn the short way round (the 180° case goes through landscape-left).
            var to = target
            while to - previous > 180 { to -= 360 }
            while previous - to >= 180 { to += 360 }
            s.add(.turn(to: Pose(angle: to, tilt: 15), seconds: turnSeconds))
            ends.append(s.duration)
            s.add(.hold(Pose(angle: to, tilt: 15), seconds: 2))
            expected.append(o)
        }
        let changes = classify(s.samples(sampling(rate: 25)))
        #expect(changes.map(\.orientation) == expected)
        for (change, end) in zip(changes.dropFirst(), ends) {
            #expect(change.t - end < 0.3, "reported \(change.orientation) \(change.t - end) s after the turn ended")
        }
    }

    @Test(arguments: [48.0, 52, 55])
    func restingNearTheBoundaryNeverFlaps(angle: Double) {
        var s = TraceScript(start: Pose(angle: 0, tilt: 20))
        s.add(.hold(Pose(angle: 0, tilt: 20), seconds: 2))
        s.add(.turn(to: Pose(angle: angle, tilt: 20), seconds: 2))
        for k in 0..<10 {
            s.add(.turn(to: Pose(angle: angle + (k.isMultiple(of: 2) ? 3 : -3), tilt: 20), seconds: 1))
        }
        let changes = classify(s.samples(sampling(noise: 0.15)))
        #expect(changes.map(\.orientation) == [.portrait])
    }

    @Test func crossingWellPastTheBoundaryTurns() {
        var s = TraceScript(start: Pose(angle: 0, tilt: 20))
        s.add(.hold(Pose(angle: 0, tilt: 20), seconds: 2))
        s.add(.turn(to: Pose(angle: 64, tilt: 20), seconds: 1))
        s.add(.hold(Pose(angle: 64, tilt: 20), seconds: 2))
        #expect(classify(s.samples()).map(\.orientation) == [.portrait, .landscapeLeft])
    }

    @Test(arguments: [(88.0, DeviceOrientation.faceUp), (-88, .faceDown), (80, .faceUp), (-79, .faceDown)])
    func flatIsAStateOfItsOwn(tilt: Double, expected: DeviceOrientation) {
        var s = TraceScript(start: Pose(angle: 90, tilt: 10))
        s.add(.hold(Pose(angle: 90, tilt: 10), seconds: 2))
        s.add(.turn(to: Pose(angle: 90, tilt: tilt), seconds: 0.5))
        s.add(.hold(Pose(angle: 90, tilt: tilt), seconds: 3))
        #expect(classify(s.samples()).map(\.orientation) == [.landscapeLeft, expected])
    }

    @Test func pickingUpAfterLyingFlatKeepsTheLastUprightOrientation() {
        // Put down in landscape, picked up at 42°: nearer portrait's centre, but within 45° + half the
        // hysteresis of the remembered landscape-left.
        var s = TraceScript(start: Pose(angle: 90, tilt: 15))
        s.add(.hold(Pose(angle: 90, tilt: 15), seconds: 2))
        s.add(.turn(to: Pose(angle: 80, tilt: 89), seconds: 0.5))
        s.add(.hold(Pose(angle: 80, tilt: 89), seconds: 3))
        s.add(.turn(to: Pose(angle: 42, tilt: 30), seconds: 0.6))
        s.add(.hold(Pose(angle: 42, tilt: 30), seconds: 3))
        var c = OrientationClassifier()
        let changes = s.samples().compactMap { c.feed($0) }
        #expect(changes.map(\.orientation) == [.landscapeLeft, .faceUp, .landscapeLeft])
        #expect(c.lastUpright == .landscapeLeft)

        // A pick-up with no memory (starting flat) takes the nearest orientation.
        var fresh = TraceScript(start: Pose(angle: 80, tilt: 89))
        fresh.add(.hold(Pose(angle: 80, tilt: 89), seconds: 2))
        fresh.add(.turn(to: Pose(angle: 30, tilt: 30), seconds: 0.6))
        fresh.add(.hold(Pose(angle: 30, tilt: 30), seconds: 3))
        #expect(classify(fresh.samples()).map(\.orientation) == [.faceUp, .portrait])
    }

    @Test(arguments: [30.0, 50, 65, 70])
    func leaningBackKeepsTheUprightOrientation(tilt: Double) {
        var s = TraceScript(start: Pose(angle: -90, tilt: 5))
        s.add(.hold(Pose(angle: -90, tilt: 5), seconds: 2))
        s.add(.turn(to: Pose(angle: -90, tilt: tilt), seconds: 1.5))
        s.add(.hold(Pose(angle: -90, tilt: tilt), seconds: 5))
        s.add(.turn(to: Pose(angle: -90, tilt: 5), seconds: 1.5))
        #expect(classify(s.samples(sampling(noise: 0.1))).map(\.orientation) == [.landscapeRight])
    }

    @Test(arguments: [(8.0, 3.0), (15, 5), (30, 7), (20, 2)], [10.0, 25, 100])
    func shakingNeverRotates(shake: (amplitude: Double, hertz: Double), rate: Double) {
        var s = TraceScript(start: Pose(angle: -90, tilt: 15))
        s.add(.hold(Pose(angle: -90, tilt: 15), seconds: 2))
        s.add(.shake(seconds: 4, amplitude: shake.amplitude, hertz: shake.hertz))
        s.add(.hold(Pose(angle: -90, tilt: 15), seconds: 2))
        #expect(classify(s.samples(sampling(rate: rate))).map(\.orientation) == [.landscapeRight])
    }

    @Test(arguments: [0.15, 0.4, 0.8])
    func freeFallNeverRotates(seconds: Double) {
        var s = TraceScript(start: Pose(angle: 0, tilt: 40))
        s.add(.hold(Pose(angle: 0, tilt: 40), seconds: 2))
        s.add(.freeFall(seconds: seconds))
        s.add(.hold(Pose(angle: 0, tilt: 40), seconds: 2))
        #expect(classify(s.samples(sampling(rate: 100))).map(\.orientation) == [.portrait])
    }

    @Test(arguments: [1.0, 2.0, 3.0])
    func walkingNeverRotates(amplitude: Double) {
        var s = TraceScript(start: Pose(angle: 90, tilt: 40))
        s.add(.hold(Pose(angle: 90, tilt: 40), seconds: 2))
        s.add(.walk(seconds: 10, amplitude: amplitude))
        #expect(classify(s.samples(sampling(rate: 50))).map(\.orientation) == [.landscapeLeft])
    }

    @Test func aGapRestartsTheFilterButKeepsTheReport() {
        var c = OrientationClassifier()
        var changes: [DeviceOrientation] = []
        for i in 0..<50 {
            if let ch = c.feed(GravitySample(t: Double(i) * 0.02, x: 0, y: 9.8, z: 0.5)) {
                changes.append(ch.orientation)
            }
        }
        // Five seconds without samples, then the device reads landscape-right.
        for i in 0..<50 {
            if let ch = c.feed(GravitySample(t: 6 + Double(i) * 0.02, x: -9.8, y: 0, z: 0.5)) {
                changes.append(ch.orientation)
            }
        }
        #expect(changes == [.portrait, .landscapeRight])
    }

    @Test func badSamplesAreSkippedAndCounted() {
        var c = OrientationClassifier()
        _ = c.feed(GravitySample(t: 1, x: 0, y: 9.8, z: 0))
        #expect(c.feed(GravitySample(t: 1.02, x: .nan, y: 9.8, z: 0)) == nil)
        #expect(c.feed(GravitySample(t: 1.04, x: 0, y: .infinity, z: 0)) == nil)
        #expect(c.feed(GravitySample(t: 0.5, x: 0, y: 9.8, z: 0)) == nil)  // back in time
        #expect(c.feed(GravitySample(t: 1, x: 0, y: 9.8, z: 0)) == nil)  // not advancing
        #expect(c.skippedSamples == 4)
        #expect(c.feed(GravitySample(t: 1.2, x: 0, y: 9.8, z: 0))?.orientation == .portrait)
    }

    @Test func theSameMotionGivesTheSameReportsAtEveryRate() {
        let script = DemoTrace.script
        let reference = classify(script.samples(sampling(rate: 50))).map(\.orientation)
        #expect(reference.count >= 6)
        for rate in [10.0, 25, 100, 200] {
            #expect(
                classify(script.samples(sampling(rate: rate, jitter: 0.2, drop: 0.03))).map(\.orientation) == reference,
                "at \(rate) Hz")
        }
    }

    @Test func explanationsNameTheEvidence() {
        var s = TraceScript(start: Pose(angle: 90, tilt: 10))
        s.add(.hold(Pose(angle: 90, tilt: 10), seconds: 1))
        s.add(.turn(to: Pose(angle: 90, tilt: 88), seconds: 0.4))
        s.add(.hold(Pose(angle: 90, tilt: 88), seconds: 1))
        let changes = classify(s.samples())
        #expect(changes[0].why.hasPrefix("first confident reading: plane angle 90° points to landscape-left"))
        #expect(changes[1].why.contains("beyond the 79° face limit"))
        #expect(changes[1].evidence.tilt > 80)
    }

    /// A device resting anywhere in the face boundary's band (72°–78°, around the 75° boundary)
    /// keeps the report it came with, upright or flat, whatever way it drifts there.
    @Test func aRestInsideTheFaceBandKeepsOneReport() async {
        await propertyCheck(count: 200, input: Gen.double(in: 72...78).array(of: 2...6), Gen.bool) { tilts, fromFlat in
            let start = Pose(angle: 0, tilt: fromFlat ? 88 : 15)
            var s = TraceScript(start: start)
            s.add(.hold(start, seconds: 1))
            for t in tilts { s.add(.turn(to: Pose(angle: 0, tilt: t), seconds: 1.5)) }
            s.add(.hold(Pose(angle: 0, tilt: tilts.last!), seconds: 1))
            let reports = classify(s.samples()).map(\.orientation)
            #expect(reports == [fromFlat ? .faceUp : .portrait], "\(tilts): \(reports)")
        }
    }

    @Test func parameterProblems() {
        #expect(OrientationClassifier.Parameters().problems.isEmpty)
        var p = OrientationClassifier.Parameters()
        p.hysteresis = 50
        p.faceExitTilt = 80
        p.settleTime = -1
        #expect(p.problems.count == 4)
        #expect(p.problems.contains { $0.hasPrefix("hysteresis must be") })
        #expect(p.problems.contains { $0.hasPrefix("face-exit-tilt must be") })
        // The exit limit while moving must lie between the two limits at rest.
        #expect(p.problems.contains { $0.hasPrefix("moving-face-exit-tilt must be between face-exit-tilt (80.0°)") })
        var moving = OrientationClassifier.Parameters()
        moving.movingLevel = 1
        moving.motionFilterTimeConstant = 0
        #expect(
            moving.problems == [
                "motion-filter-time-constant must be above 0 seconds, not 0.0",
                "moving-level must be between 0 and 1, not 1.0",
            ])
    }
}

/// A person walking with the device: a bounce along gravity at the step rate, a sway across it at
/// half that rate, and a jolt at each heel strike, on top of whatever the script does.
func walking(
    _ samples: [GravitySample], amplitude: Double = 3.5, stepHertz: Double = 1.9, seed: UInt64 = 3
) -> [GravitySample] {
    var rng = SplitMix64(seed: seed)
    return samples.map { s in
        let n = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
        let (ux, uy, uz) = (s.x / n, s.y / n, s.z / n)
        // A direction across gravity: up × z, or up × x near flat.
        var (cx, cy, cz) = (uy, -ux, 0.0)
        if cx * cx + cy * cy < 0.1 { (cx, cy, cz) = (0, uz, -uy) }
        let c = (cx * cx + cy * cy + cz * cz).squareRoot()
        let phase = 2 * Double.pi * stepHertz * s.t
        let strike = (phase / (2 * .pi)).truncatingRemainder(dividingBy: 1) < 0.08 ? 0.8 * amplitude : 0
        let along = amplitude * sin(phase) + strike + 0.3 * amplitude * rng.gaussian()
        let across = 0.5 * amplitude * sin(phase / 2) + 0.2 * amplitude * rng.gaussian()
        return GravitySample(
            t: s.t, x: s.x + along * ux + across * cx / c, y: s.y + along * uy + across * cy / c,
            z: s.z + along * uz + across * cz / c)
    }
}

@Suite("Orientation classifier while the device moves")
struct MovingClassifierTests {
    static let rates = [10.0, 25, 100, 400]

    @Test(arguments: rates)
    func aTurnWhileWalkingIsReportedWithinOneAndAHalfSeconds(rate: Double) throws {
        var s = TraceScript(start: Pose(angle: 0, tilt: 35))
        s.add(.hold(Pose(angle: 0, tilt: 35), seconds: 6))
        s.add(.turn(to: Pose(angle: 90, tilt: 35), seconds: 0.8))
        let turned = s.duration
        s.add(.hold(Pose(angle: 90, tilt: 35), seconds: 8))
        let changes = classify(walking(s.samples(sampling(rate: rate, jitter: 0.1))))
        #expect(changes.map(\.orientation) == [.portrait, .landscapeLeft], "at \(rate) Hz")
        let turn = try #require(changes.last)
        #expect(turn.t - turned < 1.6, "reported \(turn.t - turned) s after the turn, at \(rate) Hz")
        #expect(turn.evidence.moving)
        #expect(turn.why.contains("moving: gravity estimated through the motion"))
    }

    @Test(arguments: rates, [0.0, 40, 65])
    func aStreamThatStartsWhileWalkingIsReportedWithinTwoSeconds(rate: Double, tilt: Double) throws {
        for angle in [0.0, 90, 180, -90] {
            var s = TraceScript(start: Pose(angle: angle + 20, tilt: tilt))
            s.add(.hold(Pose(angle: angle + 20, tilt: tilt), seconds: 10))
            let samples = walking(s.samples(sampling(rate: rate, jitter: 0.1, t0: 500)))
            let changes = classify(samples)
            let first = try #require(changes.first, "nothing reported at \(angle)°, \(rate) Hz")
            #expect(first.t - 500 <= 2, "first report \(first.t - 500) s after the start, at \(rate) Hz")
            #expect(changes.map(\.orientation) == [centreOrientation(angle)], "at \(angle)°, \(rate) Hz")
        }
    }

    @Test(arguments: rates)
    func aPhonePickedUpFromFlatAndCarriedAtASteepLeanIsUprightAgain(rate: Double) throws {
        // Lying face up at rest, picked up, carried at a 70° lean (between the 71° rest exit limit and
        // the 79° enter limit): upright while walking, not a stale face-up.
        var s = TraceScript(start: Pose(angle: 0, tilt: 88))
        s.add(.hold(Pose(angle: 0, tilt: 88), seconds: 2))
        s.add(.turn(to: Pose(angle: 0, tilt: 70), seconds: 0.7))
        let lifted = s.duration
        s.add(.hold(Pose(angle: 0, tilt: 70), seconds: 10))
        let samples = s.samples(sampling(rate: rate))
        let moving = samples.filter { $0.t < lifted } + walking(samples.filter { $0.t >= lifted })
        let changes = classify(moving)
        #expect(changes.map(\.orientation) == [.faceUp, .portrait], "at \(rate) Hz")
        let upright = try #require(changes.last)
        #expect(upright.t - lifted < 2.5)
    }

    @Test(arguments: rates)
    func aDeviceLyingFlatOnAShakingSurfaceIsStillFaceUp(rate: Double) {
        var s = TraceScript(start: Pose(angle: 30, tilt: 87))
        s.add(.hold(Pose(angle: 30, tilt: 87), seconds: 8))
        let changes = classify(walking(s.samples(sampling(rate: rate)), amplitude: 2.5))
        #expect(changes.map(\.orientation) == [.faceUp], "at \(rate) Hz")
    }

    /// A phone held low in a walking hand: its lean drifts between 68° and 82° (across the 79°
    /// face limit at rest) and its in-screen angle by ±25° around landscape; the walk has its rests.
    /// It stays landscape, as Android's detector keeps it, at every rate: never face up and back.
    @Test(arguments: rates)
    func aPhoneHeldLowWhileWalkingKeepsItsOrientation(rate: Double) {
        var s = TraceScript(start: Pose(angle: 90, tilt: 74))
        s.add(.hold(Pose(angle: 90, tilt: 74), seconds: 3))
        for (angle, tilt) in [(110.0, 82.0), (70, 68), (95, 81), (115, 76), (65, 82), (90, 70)] {
            s.add(.turn(to: Pose(angle: angle, tilt: tilt), seconds: 2.5))
            s.add(.hold(Pose(angle: angle, tilt: tilt), seconds: 3))
        }
        let samples = s.samples(sampling(rate: rate, jitter: 0.1))
        let changes = classify(walking(samples, amplitude: 2.5, stepHertz: 1.8))
        #expect(changes.map(\.orientation) == [.landscapeLeft], "at \(rate) Hz: \(changes.map(\.why))")
    }

    /// A device carried at a fixed attitude, however hard the walk, reports one orientation: the
    /// steps never turn it.
    @Test func walkingAtAnyPaceNeverTurnsTheReport() async {
        await propertyCheck(
            count: 60, input: Gen.int(in: 0...3), Gen.double(in: -25...25), Gen.double(in: -10...55),
            Gen.double(in: 1...6), Gen.int(in: 0...3), Gen.int(in: 0...10_000)
        ) { k, offset, tilt, amplitude, rateIndex, seed in
            let angle = [0.0, 90, 180, -90][k]
            var s = TraceScript(start: Pose(angle: angle + offset, tilt: tilt))
            s.add(.hold(Pose(angle: angle + offset, tilt: tilt), seconds: 15))
            let samples = s.samples(sampling(rate: Self.rates[rateIndex], jitter: 0.1, seed: UInt64(seed)))
            let changes = classify(
                walking(samples, amplitude: amplitude, stepHertz: 1.5 + amplitude / 6, seed: UInt64(seed)))
            #expect(
                changes.map(\.orientation) == [centreOrientation(angle)],
                "\(angle + offset)° tilt \(tilt)° at \(amplitude) m/s², \(Self.rates[rateIndex]) Hz")
        }
    }
}

func centreOrientation(_ angle: Double) -> DeviceOrientation {
    centre.first { abs($0.value - angle) < 1 }!.key
}

/// Random sessions of holds and turns at random rates: the report at the end of each hold is the
/// hold's orientation; nothing changes inside a hold once it has settled (no flap, no glitch); and a
/// move between two holds is reported at most twice (once, but for a rare pass through an
/// orientation on the way, such as a pick-up from flat that turns as it lifts).
@Suite("Classifier properties")
struct ClassifierPropertyTests {
    static let holds = Gen.int(in: 0...5).array(of: 2...8)
    static let rates = Gen.int(in: 0...4)
    static let seeds = Gen.int(in: 0...1_000_000)

    @Test func reportsFollowTheHoldsAndNeverFlap() async {
        await propertyCheck(count: 300, input: Self.holds, Self.rates, Self.seeds) { holds, rateIndex, seed in
            var rng = SplitMix64(seed: UInt64(seed))
            let kinds: [DeviceOrientation] = [
                .portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight, .faceUp, .faceDown,
            ]
            // Plane angles within 25° of each centre, leaning back up to 60° or forward 20°; flat within 8°.
            func pose(_ o: DeviceOrientation) -> Pose {
                switch o {
                case .faceUp:
                    Pose(
                        angle: Double.random(in: -180...180, using: &rng), tilt: Double.random(in: 82...90, using: &rng)
                    )
                case .faceDown:
                    Pose(
                        angle: Double.random(in: -180...180, using: &rng),
                        tilt: -Double.random(in: 82...90, using: &rng))
                default:
                    Pose(
                        angle: centre[o]! + Double.random(in: -25...25, using: &rng),
                        tilt: Double.random(in: -20...60, using: &rng))
                }
            }
            let first = kinds[holds[0]]
            var script = TraceScript(start: pose(first))
            var expected: [(start: Double, end: Double, orientation: DeviceOrientation)] = []
            var current = script.initial
            for h in holds {
                let o = kinds[h]
                var p = pose(o)
                // Turn the short way round.
                while p.angle - current.angle > 180 { p.angle -= 360 }
                while current.angle - p.angle >= 180 { p.angle += 360 }
                script.add(.turn(to: p, seconds: Double.random(in: 0.3...2, using: &rng)))
                let hold = Double.random(in: 1.5...4, using: &rng)
                script.add(.hold(p, seconds: hold))
                expected.append((script.duration - hold, script.duration, o))
                current = p
            }
            let rate = [10.0, 25, 50, 100, 200][rateIndex]
            var c = OrientationClassifier()
            var changes = 0
            var next = 0
            for s in script.samples(sampling(rate: rate, jitter: 0.2, drop: 0.02, noise: 0.08, seed: UInt64(seed))) {
                if let change = c.feed(s) {
                    changes += 1
                    let inside = expected.first { change.t > $0.start + 0.5 && change.t < $0.end }
                    #expect(
                        inside == nil, "\(change.orientation) at \(change.t) s inside a settled hold, at \(rate) Hz")
                }
                while next < expected.count, s.t >= expected[next].end - 0.05 {
                    #expect(c.orientation == expected[next].orientation, "hold \(next) at \(rate) Hz")
                    next += 1
                }
            }
            var distinct = 0
            var last: DeviceOrientation?
            for e in expected where e.orientation != last { distinct += 1; last = e.orientation }
            #expect(changes <= 2 * distinct, "\(changes) changes for \(distinct) distinct holds")
        }
    }
}
