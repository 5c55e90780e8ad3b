import Foundation
import OrientationCore
import Sensors
import Testing

@Suite("Trace files")
struct TraceTests {
    @Test func parsesTheHeaderAndRows() throws {
        let trace = try Trace.parse("t,x,y,z\n0.0,0.1,9.8,0.2\n0.02,-0.1,9.7,0.3\n")
        #expect(
            trace.samples == [
                GravitySample(t: 0, x: 0.1, y: 9.8, z: 0.2), GravitySample(t: 0.02, x: -0.1, y: 9.7, z: 0.3),
            ])
    }

    @Test func acceptsCRLFBlankLinesSpacesAndOtherColumnOrders() throws {
        let trace = try Trace.parse("z, y ,x,t,label\r\n\r\n1,2,3,10,a\r\n4,5,6,11,b\r\n")
        #expect(trace.samples == [GravitySample(t: 10, x: 3, y: 2, z: 1), GravitySample(t: 11, x: 6, y: 5, z: 4)])
    }

    @Test(arguments: [
        ("", nil as Int?, "the file is empty"),
        ("time,x,y,z\n0,0,9.8,0\n", 1, "bad header 'time,x,y,z': expected 't,x,y,z' (missing t)"),
        ("t,x,y,z\n0,0,9.8,0\n0.1,0,abc,0\n", 3, "'abc' in column y is not a number"),
        ("t,x,y,z\n0,0,9.8,0\n0.1,0,,0\n", 3, "empty value in column y"),
        ("t,x,y,z\n0,0,9.8,nan\n", 2, "'nan' in column z is not finite"),
        ("t,x,y,z\n0,0,9.8,0\n0.1,inf,9.8,0\n", 3, "'inf' in column x is not finite"),
        ("t,x,y,z\n0,0,9.8,0\n0.2,0,9.8,0\n0.1,0,9.8,0\n", 4, "time goes backwards or stands still: 0.1 after 0.2"),
        ("t,x,y,z\n0,0,9.8,0\n0,0,9.8,0\n", 3, "time goes backwards or stands still: 0.0 after 0.0"),
        ("t,x,y,z\n0,0,9.8\n", 2, "expected 4 fields as in the header, found 3"),
    ])
    func badInputNamesTheLine(text: String, line: Int?, message: String) {
        #expect {
            try Trace.parse(text, path: "bad.csv")
        } throws: { error in
            guard let failure = error as? Trace.Failure else { return false }
            return failure.line == line && failure.message.hasPrefix(message) && failure.path == "bad.csv"
        }
    }

    @Test func failureReadsLikeACompilerDiagnostic() {
        let f = Trace.Failure(path: "t.csv", line: 12, message: "'x' in column y is not a number")
        #expect(f.description == "t.csv:12: error: 'x' in column y is not a number")
        #expect(
            Trace.Failure(path: "t.csv", line: nil, message: "no such file").description == "t.csv: error: no such file"
        )
    }

    @Test func missingFile() {
        #expect(
            throws: Trace.Failure(
                path: "/nonexistent/trace.csv", line: nil, message: "cannot read the trace: no such file or directory")
        ) {
            try Trace.load(path: "/nonexistent/trace.csv")
        }
    }

    @Test func aDirectoryIsNotATrace() {
        #expect(throws: Trace.Failure(path: "/tmp", line: nil, message: "cannot read the trace: is a directory")) {
            try Trace.load(path: "/tmp")
        }
    }

    @Test func loadsAFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("upright-trace-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ok.csv").path
        try "t,x,y,z\n1,0,9.81,0\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Trace.load(path: path).samples.count == 1)
    }
}

@Suite("Trace scripts")
struct TraceScriptTests {
    @Test func renderingIsDeterministicAndRespectsTheRate() {
        let a = DemoTrace.samples(), b = DemoTrace.samples()
        #expect(a == b)
        let seconds = DemoTrace.script.duration
        #expect(abs(Double(a.count) - seconds * 50) < seconds * 50 * 0.05)
        #expect(zip(a, a.dropFirst()).allSatisfy { $0.t < $1.t })
    }

    @Test func holdsReadGravityInTheDeviceFrame() {
        var s = TraceScript(start: .init(angle: 90, tilt: 0))
        s.add(.hold(.init(angle: 90, tilt: 0), seconds: 1))
        var sampling = TraceScript.Sampling()
        sampling.noise = 0
        let first = s.samples(sampling)[0]
        #expect(abs(first.x - 9.81) < 1e-9 && abs(first.y) < 1e-9 && abs(first.z) < 1e-9)
    }

    @Test func droppedSamplesAndJitter() {
        var s = TraceScript(start: .init(angle: 0, tilt: 0))
        s.add(.hold(.init(angle: 0, tilt: 0), seconds: 10))
        var sampling = TraceScript.Sampling()
        sampling.rate = 100
        sampling.drop = 0.2
        sampling.jitter = 0.3
        let samples = s.samples(sampling)
        #expect(samples.count > 700 && samples.count < 900)
    }

    @Test func demoScriptDecisions() {
        var c = OrientationClassifier()
        let reports = DemoTrace.samples().compactMap { c.feed($0)?.orientation }
        #expect(
            reports == [
                .portrait, .landscapeLeft, .faceUp, .landscapeLeft, .portrait, .portraitUpsideDown, .landscapeRight,
                // The rare cases: nothing on the steep stand; the handover passes landscape on its turn.
                .portrait, .landscapeLeft, .portraitUpsideDown,
            ])
    }
}
