import Foundation
import OrientationCore
import Sensors
import Settings
import Testing

@Suite("Mount matrix")
struct MountMatrixTests {
    /// Matrices published in systemd's hwdb (60-sensor.hwdb) and users' local hwdb files, with the raw
    /// reading of the chip when the device is held upright, which must come out as portrait.
    @Test(
        arguments: [
            // GPD Pocket 3, Dell Venue 8 Pro 3845, Chuwi Hi10 Air, Lenovo Miix 300: the chip turned a quarter.
            ("0, -1, 0; -1, 0, 0; 0, 0, 1", (9.81, 0.0, 0.0)),
            ("0, 1, 0; 1, 0, 0; 0, 0, 1", (-9.81, 0.0, 0.0)),
            ("-1, 0, 0; 0, -1, 0; 0, 0, 1", (0.0, 9.81, 0.0)),
            ("1, 0, 0; 0, 1, 0; 0, 0, 1", (0.0, -9.81, 0.0)),
            ("0, 1, 0; -1, 0, 0; 0, 0, 1", (9.81, 0.0, 0.0)),
        ] as [(String, (Double, Double, Double))])
    func publishedMatricesTurnUprightIntoPortrait(text: String, raw: (Double, Double, Double)) throws {
        let m = try #require(MountMatrix(parsing: text))
        #expect(m.problems.isEmpty)
        let g = m.gravity(raw)
        let (o, c) = OrientationClassifier.snapshot(x: g.x, y: g.y, z: g.z)
        #expect(o == .portrait, "\(text): \(g)")
        #expect(c > 0.9)
    }

    @Test func faceUpStaysFaceUp() throws {
        let m = try #require(MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1"))
        let g = m.gravity((0, 0, 9.81))
        #expect(OrientationClassifier.snapshot(x: g.x, y: g.y, z: g.z).orientation == .faceUp)
    }

    @Test(arguments: [
        ("0, 0, 0; 0, 1, 0; 0, 0, 1", "the first row is all zeros"),
        ("0, 1, 0; 0, 1, 0; 0, 0, 1", "the first and second rows are the same"),
        ("2, 0, 0; 0, 1, 0; 0, 0, 1", "the first row has length 2, not 1"),
        ("1, 0, 0; 0.7, 0.7, 0; 0, 0, 1", "the first and second rows are not at right angles"),
    ])
    func malformedMatricesAreRefused(text: String, problem: String) throws {
        let m = try #require(MountMatrix(parsing: text))
        #expect(m.problems.contains(problem), "\(m.problems)")
    }

    @Test(arguments: ["", "1, 0, 0; 0, 1, 0", "1, 0; 0, 1; 0, 0", "a, 0, 0; 0, 1, 0; 0, 0, 1", "1,0,0;0,1,0;0,0,nan"])
    func unparseable(text: String) {
        #expect(MountMatrix(parsing: text) == nil)
    }

    @Test func descriptionRoundTrips() throws {
        let m = try #require(MountMatrix(parsing: " 0,-1, 0 ;-1,0,0; 0,0,1"))
        #expect(m.description == "0, -1, 0; -1, 0, 0; 0, 0, 1")
        #expect(MountMatrix(parsing: m.description) == m)
        #expect(MountMatrix.identity.gravity((1, 2, 3)) == (-1, -2, 3))
    }
}

@Suite("Sensor sources")
struct SensorSourceTests {
    @Test func replaySpecs() {
        #expect(ReplaySpec("replay:/a/b.csv") == ReplaySpec("/a/b.csv"))
        let s = ReplaySpec("replay:t.csv?loop=1&speed=4")
        #expect(s.path == "t.csv" && s.loop && s.speed == 4)
        let bad = ReplaySpec("replay:t.csv?speed=-2&loop=no")
        #expect(bad.speed == 1 && !bad.loop)
    }

    @Test func aReplayPlaysEverySampleOnTheTracesTimeline() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).csv").path
        defer { unlink(path) }
        var script = TraceScript(start: .init(angle: 90, tilt: 10))
        script.add(.hold(.init(angle: 90, tilt: 10), seconds: 2))
        let original = script.samples()
        try Trace(samples: original).write(to: path)
        let control = SensorControl()
        var times: [Double] = [], statuses: [SensorStatus.State] = []
        for await event in SensorSource.open(SensorSettings(uri: "replay:\(path)?speed=4"), control: control) {
            switch event {
            case .sample(let s): times.append(s.t)
            case .status(let s):
                statuses.append(s.state)
                if s.state == .ended { control.stop() }
            case .change: Issue.record("open() sends readings, not changes")
            }
        }
        #expect(statuses == [.reading, .ended])
        #expect(times.count == original.count)
        // Each sample is due at the trace's own time, divided by the speed.
        let span = times.last! - times.first!
        #expect(abs(span - (original.last!.t - original.first!.t) / 4) < 1e-6)
    }

    @Test func orientationsAreClassifiedOnTheSensorThread() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).csv").path
        defer { unlink(path) }
        var script = TraceScript(start: .init(angle: 0, tilt: 10))
        script.add(.hold(.init(angle: 0, tilt: 10), seconds: 1))
        script.add(.turn(to: .init(angle: 90, tilt: 10), seconds: 0.5))
        script.add(.hold(.init(angle: 90, tilt: 10), seconds: 1))
        try Trace(samples: script.samples()).write(to: path)
        let control = SensorControl()
        var changes: [DeviceOrientation] = []
        for await event in SensorSource.orientations(SensorSettings(uri: "replay:\(path)?speed=5"), control: control) {
            switch event {
            case .sample: Issue.record("orientations() sends changes, not readings")
            case .change(let c): changes.append(c.orientation)
            case .status(let s): if s.state == .ended { control.stop() }
            }
        }
        #expect(changes == [.portrait, .landscapeLeft])
    }

    @Test func pausedWhileLockedItReadsNothing() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).csv").path
        defer { unlink(path) }
        var script = TraceScript(start: .init(angle: 0, tilt: 10))
        script.add(.hold(.init(angle: 0, tilt: 10), seconds: 60))
        try Trace(samples: script.samples()).write(to: path)
        let control = SensorControl()
        control.setPaused(true)
        let stream = SensorSource.open(SensorSettings(uri: "replay:\(path)?speed=10"), control: control)
        let stopper = Task {
            try await Task.sleep(for: .milliseconds(300))
            control.stop()
        }
        var samples = 0
        for await event in stream { if case .sample = event { samples += 1 } }
        _ = await stopper.result
        #expect(samples == 0)
    }

    @Test func noSensorIsReportedAbsentAndTheStreamStaysOpenUntilStopped() async {
        let control = SensorControl()
        var first: SensorStatus?
        for await event in SensorSource.open(SensorSettings(uri: "none"), control: control) {
            if case .status(let s) = event { first = s }
            control.stop()
        }
        #expect(first?.state == .absent)
        #expect(first?.message == "no sensor is configured (uri = \"none\")")
    }

    @Test func aMissingReplayFileIsReported() async {
        let control = SensorControl()
        var message = ""
        for await event in SensorSource.open(SensorSettings(uri: "replay:/nonexistent.csv"), control: control) {
            if case .status(let s) = event { message = s.message }
            control.stop()
        }
        #expect(message == "cannot replay: /nonexistent.csv: error: cannot read the trace: no such file or directory")
    }

    @Test func theMotionFallbackWithoutASensorAnswersUnknownAtOnce() {
        let m = MotionFallback.measure(SensorSettings(uri: "none"))
        #expect(m == .unknown)
    }
}

@Suite("Snapshot classification")
struct SnapshotTests {
    @Test(
        arguments: [
            ((0.0, 9.81, 0.5), DeviceOrientation.portrait), ((9.81, 0.0, 1.0), .landscapeLeft),
            ((-9.81, 0.0, 1.0), .landscapeRight), ((0.0, -9.81, 0.0), .portraitUpsideDown),
            ((0.1, 0.2, 9.8), .faceUp), ((0.1, 0.2, -9.8), .faceDown), ((0.0, 0.0, 0.3), .unknown),
        ] as [((Double, Double, Double), DeviceOrientation)])
    func clearReadings(v: (Double, Double, Double), expected: DeviceOrientation) {
        let (o, c) = OrientationClassifier.snapshot(x: v.0, y: v.1, z: v.2)
        #expect(o == expected)
        #expect(expected == .unknown ? c == 0 : c > 0.9)
    }

    @Test func confidenceFallsTowardTheBoundary() {
        let clear = OrientationClassifier.snapshot(x: 0.8, y: 9.7, z: 0).confidence
        let near = OrientationClassifier.snapshot(x: 6.7, y: 7.2, z: 0).confidence  // about 43°
        #expect(clear > 0.9 && near < 0.2)
    }
}
