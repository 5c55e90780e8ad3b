import Blocking
import Foundation
import OrientationCore
import Session
import Testing
import TimeSync

@testable import UprightCLI

/// The `upright` binary next to the test bundle (both are built into the same folder).
let uprightBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["UPRIGHT_BIN"] { return URL(fileURLWithPath: path) }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("upright")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: ".build/debug/upright")
}()

struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `upright ARGUMENTS` and waits for it off the cooperative pool (a test that blocks a pool
/// thread while it waits starves every task of the test process on a two-core machine).
func upright(_ arguments: [String], environment: [String: String]? = nil) async throws -> Run {
    try await Blocking.run { try uprightNow(arguments, environment: environment) }
}

/// Runs `upright ARGUMENTS` and waits for it on the calling thread; `environment` replaces the
/// test's own.
func uprightNow(_ arguments: [String], environment: [String: String]? = nil) throws -> Run {
    let p = Process()
    p.executableURL = uprightBinary
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Run(
        status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
        stderr: String(decoding: e, as: UTF8.self))
}

func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!.path
}

func temporaryFile(_ text: String, suffix: String = ".csv") throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("upright-\(UUID().uuidString)\(suffix)")
        .path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite("upright replay")
struct ReplayCommandTests {
    @Test func printsOneJSONObjectPerChange() async throws {
        let run = try await upright(["replay", fixture("rotate.csv")])
        #expect(run.status == 0)
        let changes = try replayLines(run.stdout).compactMap(\.change)
        #expect(changes.map(\.orientation) == [.portrait, .landscapeLeft])
        let times = changes.map(\.t)
        #expect(times.count == 2 && times[0] >= 10 && times[0] < 10.3 && times[1] > 12.0 && times[1] < 12.9)
        #expect(changes.allSatisfy { $0.why == nil && $0.locked == nil }, "t and orientation only")
    }

    @Test func explainAddsWhy() async throws {
        let run = try await upright(["replay", "--explain", fixture("rotate.csv")])
        let first = try #require(try replayLines(run.stdout).first?.change)
        #expect(first.why?.hasPrefix("first confident reading") == true)
    }

    @Test func optionsOverrideTheClassifierParameters() async throws {
        let normal = try await upright(["replay", fixture("rotate.csv")]).stdout
        let slow = try await upright(["replay", "--settle-time", "1.5", fixture("rotate.csv")]).stdout
        func lastT(_ s: String) throws -> Double { try #require(try replayLines(s).last).t }
        #expect(try lastT(slow) > lastT(normal) + 1.0)
    }

    @Test func badParameterIsRefused() async throws {
        let run = try await upright(["replay", "--hysteresis", "50", fixture("rotate.csv")])
        #expect(run.status != 0)
        #expect(run.stderr.contains("hysteresis must be at least 0° and under 45°, not 50.0"))
    }

    @Test func missingFile() async throws {
        let run = try await upright(["replay", "/nonexistent/trace.csv"])
        #expect(run.status == 1)
        #expect(run.stderr == "/nonexistent/trace.csv: error: cannot read the trace: no such file or directory\n")
        #expect(run.stdout.isEmpty)
    }

    @Test(arguments: [
        ("t,x,y,z\n0,0,9.8,0\n0.1,0,x,0\n", ":3: error: 'x' in column y is not a number"),
        ("a,b,c\n", ":1: error: bad header 'a,b,c'"),
        ("t,x,y,z\n0,0,9.8,0\n0.1,0,inf,0\n", ":3: error: 'inf' in column y is not finite"),
        ("t,x,y,z\n1,0,9.8,0\n0.5,0,9.8,0\n", ":3: error: time goes backwards"),
    ])
    func badTraceNamesTheLine(text: String, expected: String) async throws {
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await upright(["replay", path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(path)\(expected)"), "\(run.stderr)")
    }
}

@Suite("upright demo")
struct DemoCommandTests {
    @Test func explainsEveryChange() async throws {
        let run = try await upright(["demo", "--detector"])
        #expect(run.status == 0)
        let changes = run.stdout.split(separator: "\n").filter { $0.contains("->") }
        #expect(changes.count == 10)
        #expect(changes.allSatisfy { $0.contains("(") && $0.contains("no motion") })
        #expect(run.stdout.contains("script: shaken hard"))
    }

    @Test func jsonLinesAsReplay() async throws {
        let run = try await upright(["demo", "--json"])
        let names = try replayLines(run.stdout).compactMap { $0.change?.orientation.name }
        #expect(
            names == [
                "portrait", "landscape-left", "face-up", "landscape-left", "portrait", "portrait-upside-down",
                "landscape-right", "portrait", "landscape-left", "portrait-upside-down",
            ])
    }

    /// The two rare cases of the script: one report through the rest at 72.5°–77.5° on a steep
    /// stand, and after the handover's turn no change until the other person holds it.
    @Test func theSteepStandAndTheHandoverAreOneReportEach() async throws {
        let lines = try await upright(["demo", "--detector"]).stdout.split(separator: "\n").map(String.init)
        func index(_ step: String) throws -> Int { try #require(lines.firstIndex { $0.hasSuffix("script: " + step) }) }
        let stand = try index("leaned back onto a steep stand"), picked = try index("picked up in portrait")
        #expect(!lines[stand..<picked].contains { $0.contains("->") }, "\(lines[stand..<picked])")
        let across = try index("turned about the vertical to face across")
        let after = lines[across...].filter { $0.contains("->") }
        #expect(after.count == 1 && after[0].contains("-> portrait-upside-down"), "\(after)")
    }
}

@Suite("upright demo, the product")
struct ProductDemoTests {
    /// Width and height from a PNG file's IHDR chunk.
    func pngSize(_ path: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func u32(_ i: Int) -> Int { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    @Test func leavesSnapshotsAContactSheetAndTheDecisionLog() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("upright-demo-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try await upright(["demo", "--headless", "--speed", "3", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        let snapshots = files.filter { $0.hasSuffix(".png") && $0 != "contact-sheet.png" }
        #expect(snapshots.count == 9, "\(files)")
        #expect(snapshots.first == "01-portrait.png")
        for s in snapshots { #expect(try pngSize(out + "/" + s) == (360, 640)) }
        let (w, h) = try pngSize(out + "/contact-sheet.png")
        #expect(w > 5 * 180 && h > 2 * 320)
        // The decisions follow the script: full screen turns to landscape, leaving it to portrait,
        // the locked hotkey forces landscape, and lying flat turns nothing.
        let decisions = try decisionLines(String(contentsOfFile: out + "/decisions.jsonl", encoding: .utf8))
            .filter { $0.decision == .rotate }
            .map { "\($0.interface.name) \($0.cause ?? "")" }
        #expect(
            decisions == [
                "portrait launch", "landscape-right fullscreen", "portrait fullscreen", "landscape-right fullscreen",
                "portrait fullscreen",
            ], "\(decisions)")
        #expect(run.stdout.contains("contact sheet: \(out)/contact-sheet.png"))
    }
}

@Suite("JSON text")
struct JSONTextTests {
    @Test(arguments: [
        ("plain", "\"plain\""), ("a\"b", "\"a\\\"b\""), ("back\\slash", "\"back\\\\slash\""),
        ("line\nbreak", "\"line\\nbreak\""), ("\u{1}", "\"\\u0001\""), ("45°", "\"45°\""),
    ])
    func quoting(input: String, expected: String) async throws {
        #expect(JSONText.quote(input) == expected)
        #expect(
            try JSONSerialization.jsonObject(with: Data(JSONText.quote(input).utf8), options: .fragmentsAllowed)
                as? String
                == input)
    }
}

@Suite("upright check-config")
struct CheckConfigTests {
    @Test func printsTheEffectiveConfiguration() async throws {
        let config = try temporaryFile("[scenes.menu]\nautorotate = true\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["check-config", config])
        #expect(run.status == 0)
        #expect(
            run.stdout.hasPrefix(
                "# from \(config)\n[app]\nsupported = [\"portrait\", \"landscape-right\", \"landscape-left\"]"))
        #expect(run.stdout.contains("[scenes.menu]\nsupported = [\"portrait\"]\nautorotate = true\n"))
    }

    @Test func originNamesTheDropInThatSetEachValue() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("origin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/u.toml.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[sensor]\nrate_hz = 20\n".write(toFile: dir + "/u.toml", atomically: true, encoding: .utf8)
        try "[sensor]\nrate_hz = 40\n".write(toFile: dir + "/u.toml.d/10-a.toml", atomically: true, encoding: .utf8)
        let run = try await upright(["check-config", "--origin", dir + "/u.toml"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("# then \(dir)/u.toml.d/10-a.toml"))
        #expect(run.stdout.contains("rate_hz = 40  # \(dir)/u.toml.d/10-a.toml"), "\(run.stdout)")
        #expect(run.stdout.contains("uri = \"local:\"  # default"))
    }

    /// `doctor` reads what `play` reads: the search order's file and its drop-ins, not the defaults.
    @Test func doctorReadsTheConfigurationPlayReads() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("xdg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: home + "/upright/upright.toml.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try "[sensor]\nuri = \"none\"\n".write(
            toFile: home + "/upright/upright.toml", atomically: true, encoding: .utf8)
        try "[hotkeys]\nfullscreen = [\"KEY_F11\"]\n[input]\ndevices = [\"/dev/input/by-nothing/*\"]\n".write(
            toFile: home + "/upright/upright.toml.d/10-keys.toml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home
        let run = try await upright(["doctor"], environment: environment)
        #expect(
            run.stdout.contains(
                "configuration: \(home)/upright/upright.toml with the drop-in \(home)/upright/upright.toml.d/10-keys.toml"
            ),
            "\(run.stdout)")
        #expect(run.stdout.contains("sensor URI: none"), "\(run.stdout)")
        #expect(run.stdout.contains("bound keys KEY_F11"), "\(run.stdout)")
        // Whether a time service keeps the clock (the kernel's state: either answer on a test machine).
        #expect(
            run.stdout.contains("system clock: synchronised (estimated error ")
                || run.stdout.contains("system clock: not synchronised (no time service keeps it"), "\(run.stdout)")
    }

    /// A wall's screen is told when nothing keeps its clock (the kernel's state, as it is here),
    /// and when its group has no key.
    @Test func doctorWarnsAWallsScreenWhoseClockIsNotSynchronised() async throws {
        let config = try temporaryFile(
            "[sensor]\nuri = \"none\"\n[mqtt]\nurl = \"mqtt://127.0.0.1:1\"\ndevice = \"wall-1\"\n[sync]\ngroup = \"lobby\"\n"
        )
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["doctor", "--config", config])
        let warned = run.stdout.contains(
            "warning: this screen is in the wall group lobby and its clock is not synchronised: run chrony")
        #expect(warned == (ClockSync.now()?.synchronised != true), "\(run.stdout)")
        // And that, without a key, anyone on the broker can move the wall.
        #expect(run.stdout.contains("warning: [sync] has no key_file: anyone on the broker can move the wall"))
    }

    @Test func errorsAndExitStatusOne() async throws {
        let config = try temporaryFile("[app]\nlaunch = \"sideways\"\n[sensr]\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["check-config", config])
        #expect(run.status == 1)
        #expect(
            run.stderr == "\(config):2:10: error: unknown orientation 'sideways'; expected one of: portrait, "
                + "landscape-right, portrait-upside-down, landscape-left\n\(config):3:1: warning: unknown key 'sensr'; did you mean 'sensor'?\n"
        )
        #expect(run.stdout.isEmpty)
    }
}

@Suite("upright play")
struct PlayCommandTests {
    @Test func followsTheReplayedSensorThroughThePolicyToThePlayer() async throws {
        let config = try temporaryFile(
            "[scenes.inline]\nsupported = [\"portrait\", \"landscape-right\", \"landscape-left\"]\nautorotate = true\n"
                + "[lock]\nevdev = \"none\"\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright([
            "play", "--config", config, "--uri", "replay:\(fixture("rotate.csv"))", "--vo", "null", "--duration", "4",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let decisions = try decisionLines(run.stdout)
        #expect(decisions.first?.reason == .launch)
        let turn = decisions.first { $0.decision == .rotate && $0.reason == .device }
        #expect(turn?.interface == .landscapeRight, "\(run.stdout)")
        #expect(turn?.strategy == .surface)
        #expect(run.stderr.contains("sensor reading: replaying"))
    }
}

/// The commands that exist to read the sensor fail, saying why, when there is none.
@Suite("No sensor, no file: errors that say why")
struct ErrorTests {
    @Test(arguments: [
        ["record", "--uri", "none", "--out", "/tmp/upright-never.csv", "--duration", "0.5"],
        ["sensor", "--uri", "none", "--duration", "0.5"],
        ["sensor", "--raw", "--uri", "none", "--duration", "0.5"],
        ["sensor", "--motion", "--uri", "none"],
    ])
    func sensorCommandsFailWithNoSensor(arguments: [String]) async throws {
        let run = try await upright(arguments)
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: no sensor: "), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/upright-never.csv"))
    }

    @Test func replayingADirectorySaysSo() async throws {
        let run = try await upright(["replay", NSTemporaryDirectory()])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: cannot read the trace: is a directory"), "\(run.stderr)")
    }

    @Test func checkConfigNamesPlaylistFilesThatCannotBeRead() async throws {
        let config = try temporaryFile("[player]\nplaylist = [\"/nonexistent/a.mp4\", \"https://example.com/b.mp4\"]\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(["check-config", config])
        #expect(run.status == 0)
        #expect(
            run.stderr.contains(
                "\(config):2:13: warning: 'player.playlist': /nonexistent/a.mp4: no such file or directory"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("warning: 'player.playlist': https://example.com"))
        // Then what each entry is now.
        #expect(run.stderr.contains("upright: playlist: /nonexistent/a.mp4: no such file or directory"))
        #expect(
            run.stderr.contains("upright: playlist: https://example.com/b.mp4: a remote file, played from the cache"))
    }

    @Test func aBadSensorURIIsRefusedAsTheConfigurationWouldBe() async throws {
        let run = try await upright([
            "play", "--uri", "bogus:thing", "--vo", "null", "--no-control", "--duration", "0.1",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("bad sensor URI 'bogus:thing'"), "\(run.stderr)")
    }
}

/// The program exports what libraries must find in it, and nothing else
/// (packaging/upright.exports).
@Suite("The program's exports")
struct ExportTests {
    @Test func itExportsTheCloseGuardAndNoSwiftSymbol() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        p.arguments = ["--dyn-syms", "--wide", uprightBinary.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        var defined: [String] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count >= 8 && fields[6] != "UND" { defined.append(String(fields[7])) }
        }
        // libmpv's and libwayland-client's close calls reach the guard only if the program exports it.
        #expect(defined.contains { $0 == "close" || $0.hasPrefix("close@") }, "\(defined.prefix(20))")
        #expect(!defined.contains { $0.hasPrefix("$s") }, "\(defined.filter { $0.hasPrefix("$s") }.prefix(5))")
    }
}

/// A new folder under the temporary directory (`prefix-XXXXXXXX`) with `upright.toml` holding
/// `configuration`; the caller removes the folder.
func configuredFolder(_ prefix: String, configuration: String) throws -> (dir: String, config: String) {
    let dir = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let config = dir + "/upright.toml"
    try configuration.write(toFile: config, atomically: true, encoding: .utf8)
    return (dir, config)
}
