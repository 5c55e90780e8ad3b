import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// `upright ctl screenshot --out`: headless (the video frame) and under a real sway.
@Suite("ctl screenshot", .serialized)
struct ScreenshotTests {
    /// A PNG's size from its IHDR chunk; `nil` when the bytes are not a PNG.
    static func pngSize(_ path: String) -> (Int, Int)? {
        guard let d = FileManager.default.contents(atPath: path), d.count > 24,
            d.prefix(8) == Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        else { return nil }
        func u32(_ i: Int) -> Int { d[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    @Test func headlessItIsTheVideoFrame() async throws {
        let dir = NSTemporaryDirectory() + "shot-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing av://lavfi"), "\(play.stderr)")
        try await Task.sleep(for: .milliseconds(300))
        let run = try await upright(["ctl", "--socket", socket, "screenshot", "--out", dir + "/shot.png"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(#""source": "the video frame""#), "\(run.stdout)")
        #expect(Self.pngSize(dir + "/shot.png").map { $0 == (1280, 720) } == true)
        // Without --out the PNG itself goes to standard output.
        let p = Process()
        p.executableURL = uprightBinary
        p.arguments = ["ctl", "--socket", socket, "screenshot"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let bytes = await Blocking.run { () -> Data in
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return data
        }
        #expect(p.terminationStatus == 0 && bytes.prefix(4) == Data([0x89, 0x50, 0x4e, 0x47]) && bytes.count > 1000)
    }

    @Test func underSwayItIsTheScreen() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let socket = sway.directory + "/control.sock"
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "XDG_CURRENT_DESKTOP", "DBUS_SESSION_BUS_ADDRESS"] { environment[name] = nil }
        environment.merge(sway.environment) { $1 }
        let play = try SignalTests.Play(
            ["--uri", "none", "--vo", "wlshm", "--control", socket],
            environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing av://lavfi"), "\(play.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let out = sway.directory + "/shot.png"
        let run = try await upright(["ctl", "--socket", socket, "screenshot", "--out", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains(#""source": "mpv's window""#)
                || run.stdout.contains(#""source": "the compositor's screen (grim, output HEADLESS-1)""#),
            "\(run.stdout)")
        #expect(Self.pngSize(out).map { $0 == (800, 1280) } == true, "\(String(describing: Self.pngSize(out)))")
    }
}
