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

func sampling(rate: Double = 50, jitter: Double = 0.1, drop: Double = 0, noise: Double = 0.05, seed: UInt64 = 1)
    -> TraceScript.Sampling
{
    var s = TraceScript.Sampling()
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

    @Test func startingNearABoundaryWaitsForAClearReading() {
        var s = TraceScript(start: Pose(angle: 44, tilt: 10))
        s.add(.hold(Pose(angle: 44, tilt: 10), seconds: 3))
        #expect(classify(s.samples()).isEmpty)
        s.add(.turn(to: Pose(angle: 20, tilt: 10), seconds: 1))
        s.add(.hold(Pose(angle: 20, tilt: 10), seconds: 2))
        #expect(classify(s.samples()).map(\.orientation) == [.portrait])
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
        #expect(p.problems.count == 3)
        #expect(p.problems.contains { $0.hasPrefix("hysteresis must be") })
        #expect(p.problems.contains { $0.hasPrefix("face-exit-tilt must be") })
    }
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
