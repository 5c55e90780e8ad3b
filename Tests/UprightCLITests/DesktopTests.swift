import Display
import Foundation
import TestSupport
import Testing

@testable import Display

/// KDE's words and listing (kscreen-doctor cannot turn the virtual output here), and `doctor`
/// naming the backend and the rotation owners under each stack.
@Suite("Desktops: KDE's words, and doctor under each stack", .serialized)
struct DesktopTests {
    /// `kscreen-doctor -j` as libkscreen 5.27's ConfigSerializer writes it (its keys as the real one
    /// prints them for KWin's virtual output): a portrait tablet panel turned right, an HDMI output
    /// switched off, a DisplayPort one unplugged.
    static let listing = """
        {"outputs": [
          {"id": 1, "name": "eDP-1", "type": 7, "connected": true, "enabled": true, "priority": 1,
           "pos": {"x": 0, "y": 0}, "scale": 1, "size": {"width": 1280, "height": 800}, "rotation": 8,
           "currentModeId": "0", "modes": [{"id": "0", "name": "800x1280@60", "size": {"width": 800, "height": 1280},
           "refreshRate": 60}]},
          {"id": 2, "name": "HDMI-A-1", "type": 11, "connected": true, "enabled": false, "priority": 0,
           "rotation": 1, "currentModeId": "", "modes": []},
          {"id": 3, "name": "DP-1", "type": 10, "connected": false, "enabled": false, "rotation": 1, "modes": []}
        ]}
        """

    @Test func kscreenDoctorsListingAndWords() throws {
        let outputs = try KdeBackend.parse(Self.listing)
        #expect(outputs.map(\.name) == ["eDP-1", "HDMI-A-1"], "a disconnected output is not listed")
        #expect(outputs[0].transform == OutputTransform(clockwise: 90) && outputs[0].mode?.description == "800x1280")
        #expect(outputs[0].showsUpright && outputs[0].canRotate && !outputs[1].active && !outputs[1].canRotate)
        // One clockwise convention, kscreen's words at the edge.
        let words = [0, 90, 180, 270].map { KdeBackend.arguments(OutputTransform(clockwise: $0), of: "eDP-1")[0] }
        #expect(
            words == [
                "output.eDP-1.rotation.none", "output.eDP-1.rotation.right", "output.eDP-1.rotation.inverted",
                "output.eDP-1.rotation.left",
            ])
        for r in [1, 2, 4, 8] {
            let t = try #require(KdeBackend.transform(kscreen: r))
            #expect(["none": 1, "left": 2, "inverted": 4, "right": 8][t.kscreenName] == r)
        }
        #expect(throws: DisplayError.self) { try KdeBackend.parse("kscreen-doctor: no backend") }
    }

    @Test func mutterTransformsAreCounterClockwise() {
        #expect([0, 90, 180, 270].map { OutputTransform(clockwise: $0).mutterValue } == [0, 3, 2, 1])
        #expect((0..<4).map { OutputTransform(mutterValue: $0)!.clockwise } == [0, 270, 180, 90])
        #expect(OutputTransform(mutterValue: 5) == nil, "a flipped transform is not Upright's")
    }

    @Test func aLiveKWinIsFoundOnTheBusAndListed() async throws {
        let kde = try await HeadlessDesktop.start(.kde)
        defer { kde.stop() }
        let environment = kde.clientEnvironment()
        let run = try await upright(["doctor", "--uri", "none"], environment: environment)
        #expect(
            run.stdout.contains("display backend: kde (org.kde.KWin is on the session bus: kscreen-doctor)"),
            "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains("output Virtual-0: active, 800x1280, turned 0° clockwise, turns at run time"),
            "\(run.stdout)")
        #expect(run.stdout.contains("KDE's auto-rotation (KWin, per output)"), "\(run.stdout)")
    }

    /// KWin's virtual output offers no power control: kscreen-doctor waits, and its time limit
    /// ends the wait with the reason (playback is never held up by it).
    @Test func kwinsVirtualOutputCannotBeSwitchedOffAndSaysSo() async throws {
        let kde = try await HeadlessDesktop.start(.kde)
        defer { kde.stop() }
        let display = DisplayController.forTest(.kde, directory: kde.directory, environment: kde.environment)
        _ = await display.start()
        // This process's own kscreen-doctor children (another test run's are not this one's).
        func helpers() -> Set<String> {
            Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { pid in
                    let line = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
                    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                    let parent = stat.split(separator: ")").last?.split(separator: " ").dropFirst().first
                    return String(decoding: line, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
                        .contains("kscreen-doctor --dpms") && parent.flatMap { Int32($0) } == getpid()
                })
        }
        let before = helpers()
        let started = Date()
        let refusal = await display.setPower(false)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(
            refusal?.description
                == "KWin did not switch the outputs off: kscreen-doctor --dpms off did not finish within 15 s",
            "\(String(describing: refusal))")
        // The waiting kscreen-doctor was ended, not left behind.
        try await Task.sleep(for: .milliseconds(500))
        let left = helpers().subtracting(before)
        #expect(left.isEmpty, "kscreen-doctor still running: \(left)")
    }

    @Test func doctorUnderKDENamesKWinsOwnRotation() async throws {
        var environment = ProcessInfo.processInfo.environment
        for name in ["SWAYSOCK", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] { environment[name] = nil }
        environment["XDG_RUNTIME_DIR"] = NSTemporaryDirectory()
        environment["XDG_CURRENT_DESKTOP"] = "KDE"
        let run = try await upright(["doctor", "--uri", "none"], environment: environment)
        #expect(run.stdout.contains("desktop: KDE"), "\(run.stdout)")
        #expect(run.stdout.contains("display backend: kde (XDG_CURRENT_DESKTOP is KDE)"), "\(run.stdout)")
        #expect(run.stdout.contains("also turning outputs: KDE's auto-rotation (KWin, per output)"), "\(run.stdout)")
    }

    @Test func doctorUnderSwayNamesItAndKanshi() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        // An idle stand-in named kanshi (a link to sleep): what doctor looks for is the process's name.
        let link = sway.directory + "/kanshi"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/bin/sleep")
        let kanshi = Process()
        kanshi.executableURL = URL(fileURLWithPath: link)
        kanshi.arguments = ["30"]
        try kanshi.run()
        defer { kanshi.send(SIGKILL) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "XDG_CURRENT_DESKTOP", "DBUS_SESSION_BUS_ADDRESS"] { environment[name] = nil }
        environment.merge(sway.environment) { $1 }
        let run = try await upright(["doctor", "--uri", "none"], environment: environment)
        #expect(run.stdout.contains("desktop: none named"), "\(run.stdout)")
        #expect(run.stdout.contains("display backend: sway (SWAYSOCK is set"), "\(run.stdout)")
        #expect(run.stdout.contains("also turning outputs: kanshi (pid"), "\(run.stdout)")
    }
}
