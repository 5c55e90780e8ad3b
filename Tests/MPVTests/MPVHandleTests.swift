import Foundation
import Glibc
import MPV
import Playback
import TestSupport
import Testing

let headless = [("vo", "null"), ("ao", "null"), ("idle", "yes"), ("terminal", "no")]
let testPattern = "av://lavfi:testsrc=size=640x360:rate=25"

/// Each test runs against mpv in this process and mpv in a process of its own: the same calls,
/// events and errors.
@Suite("libmpv handle", .serialized)
struct MPVHandleTests {
    @Test(arguments: [false, true]) func createsAHeadlessPlayerAndReadsTypedProperties(separateProcess: Bool) throws {
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        #expect(try mpv.get(.mpvVersion).hasPrefix("mpv "))
        #expect(mpv.string("vo") == "null")
        try mpv.set(.pause, true)
        #expect(try mpv.get(.pause))
        #expect(mpv.string("no-such-property") == nil)
    }

    @Test(arguments: [false, true]) func errorsNameTheCallAndMpvsMessage(separateProcess: Bool) throws {
        #expect(
            throws: MPVError(call: "mpv_set_option_string(no-such-option=1)", message: "option not found", code: -5)
        ) {
            try MPVHandle(options: [("no-such-option", "1")], separateProcess: separateProcess)
        }
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        #expect(throws: MPVError(call: "mpv_get_property(no-such-property)", message: "property not found", code: -8)) {
            _ = try mpv.get("no-such-property", as: .int64)
        }
        #expect(throws: MPVError.self) { try mpv.command(["no-such-command"]) }
    }

    @Test(arguments: [false, true]) func playsATestPatternAndTurnsItWithoutRestarting(separateProcess: Bool)
        async throws
    {
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        try mpv.command(["loadfile", testPattern])
        #expect(await waitFor(mpv.events) { $0 == .playbackRestart } != nil)
        #expect(try mpv.get(.videoWidth) == 640 && mpv.get(.videoHeight) == 360)
        let position = try mpv.get(.timePosition)
        try mpv.set(.videoRotate, 90)
        // With no rotating video output mpv inserts a rotate filter: the output swaps width and height.
        #expect(await waitFor(mpv.events) { $0 == .videoReconfigured } != nil)
        var outWidth: Int64 = 0
        for _ in 0..<250 {  // the new output parameters follow the reconfiguration (bounded wait)
            outWidth = (try? mpv.get(.videoOutWidth)) ?? 0
            if outWidth == 360 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(outWidth == 360)
        #expect(try mpv.get(.videoOutHeight) == 640)
        #expect(try mpv.get(.videoRotate) == 90)
        #expect(try mpv.get(.timePosition) >= position)  // playback went on
    }

    @Test(arguments: [false, true]) func keyBindingsArriveAsClientMessages(separateProcess: Bool) async throws {
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        try mpv.command(["keybind", "f", "script-message upright-fullscreen"])
        try mpv.command(["keypress", "f"])
        let seen = await waitFor(mpv.events) { if case .clientMessage = $0 { true } else { false } }
        #expect(seen?.last == .clientMessage(["upright-fullscreen"]))
    }

    @Test(arguments: [false, true]) func aMissingFileEndsWithAnError(separateProcess: Bool) async throws {
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        try mpv.command(["loadfile", "/nonexistent/video.mp4"])
        let seen = await waitFor(mpv.events) { if case .endFile = $0 { true } else { false } }
        guard case .endFile(let reason, let error, _) = seen?.last else {
            Issue.record("no end-file event: \(String(describing: seen))")
            return
        }
        #expect(reason == "error")
        #expect(error == "loading failed")
    }

    @Test(arguments: [false, true]) func observedPropertiesAndShutdown(separateProcess: Bool) async throws {
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        try mpv.observe("pause", as: .flag)
        try mpv.set(.pause, true)
        #expect(await waitFor(mpv.events) { $0 == .propertyChange(name: "pause", value: .flag(true)) } != nil)
        mpv.quit()
        #expect(await waitFor(mpv.events) { $0 == .shutdown } != nil)
    }

    @Test(arguments: [false, true]) func aStartNotWaitedForObservesAndBindsAndSaysWhyItFailed(separateProcess: Bool)
        async throws
    {
        // Observed and bound as part of the start: the pause's change and a key's message arrive.
        let mpv = try MPVHandle(
            starting: headless, observing: [("pause", .flag)],
            commands: [["keybind", "f", "script-message upright-fullscreen"]], separateProcess: separateProcess)
        try mpv.waitStarted()
        try mpv.set(.pause, true)
        #expect(await waitFor(mpv.events) { $0 == .propertyChange(name: "pause", value: .flag(true)) } != nil)
        try mpv.command(["keypress", "f"])
        #expect(await waitFor(mpv.events) { $0 == .clientMessage(["upright-fullscreen"]) } != nil)
        #expect(await mpv.shutdown())
        // A start that fails says why when waited for, and to each call, in a process of its own
        // (in this one, the init throws).
        let badOption = MPVError(call: "mpv_set_option_string(no-such-option=1)", message: "option not found", code: -5)
        let badCommand = MPVError(call: "mpv_command(no-such-command)", message: "invalid parameter", code: -4)
        for (options, commands, failure) in [
            (headless + [("no-such-option", "1")], [["keybind", "f", "ignore"]], badOption),
            (headless, [["no-such-command"]], badCommand),
        ] {
            guard separateProcess else {
                #expect(throws: failure) {
                    try MPVHandle(starting: options, commands: commands, separateProcess: false)
                }
                continue
            }
            let failed = try MPVHandle(starting: options, commands: commands, separateProcess: true)
            #expect(throws: failure) { try failed.waitStarted() }
            #expect(throws: failure) { _ = try failed.get(.pause) }
            #expect(await waitFor(failed.events) { $0 == .shutdown } != nil)
        }
    }

    @Test func mpvInItsOwnProcessEndsWhenToldToQuit() async throws {
        let mpv = try MPVHandle(options: headless, separateProcess: true)
        let pid = try #require(mpv.processID)
        #expect(kill(pid, 0) == 0)
        // A terminal's Ctrl-C and hang-up, and a stop, are for its parent: it stays and answers.
        for signal in [SIGINT, SIGHUP, SIGTERM] { kill(pid, signal) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(kill(pid, 0) == 0)
        #expect(try mpv.get(.pause) == false)
        #expect(await mpv.shutdown())
        #expect(kill(pid, 0) == -1)  // ended and reaped
        #expect(throws: MPVError(call: "mpv_get_property(pause)", message: "mpv has shut down", code: -3)) {
            _ = try mpv.get(.pause)
        }
    }

    /// A socket of the player's made without close-on-exec (libmosquitto's, NIO's) stays out of
    /// mpv's process: a broker sees the player's connection end when the player dies, and a
    /// confined mpv holds none of its listeners.
    @Test func mpvsProcessHoldsNoneOfThePlayersDescriptors() async throws {
        let inherited = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(inherited) }
        let name = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(inherited)")
        let mpv = try MPVHandle(options: headless, separateProcess: true)
        try mpv.waitStarted()
        let pid = try #require(mpv.processID)
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? ""
        }
        #expect(!held.isEmpty && !held.contains(name), "\(held)")
        #expect(await mpv.shutdown())
    }

    @Test func aCrashOfMpvsProcessEndsTheEventsAsAShutdownDoes() async throws {
        let mpv = try MPVHandle(options: headless, separateProcess: true)
        try mpv.command(["loadfile", testPattern])
        #expect(await waitFor(mpv.events) { $0 == .playbackRestart } != nil)
        kill(try #require(mpv.processID), SIGSEGV)
        let seen = await waitFor(mpv.events) { $0 == .shutdown }
        #expect(
            seen?.contains(
                .log(
                    prefix: "upright-mpv", level: "error",
                    text: "mpv's process (pid \(mpv.processID!)) was ended by signal 11")) == true)
        #expect(throws: MPVError.self) { try mpv.command(["stop"]) }
    }

    @Test func theRenderAPINeedsMpvInThisProcess() throws {
        let mpv = try MPVHandle(options: [("vo", "libmpv"), ("ao", "null")], separateProcess: true)
        #expect(
            throws: MPVError(
                call: "mpv_render_context_create", message: "the render API needs mpv in this process", code: -1)
        ) {
            _ = try MPVSoftwareRenderer(mpv)
        }
    }

    @Test(arguments: [false, true]) func aFilesLengthIsProbedWithoutPlayingIt(separateProcess: Bool) throws {
        let dir = NSTemporaryDirectory() + "probe-\(getpid())-\(separateProcess)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Clips.pattern(dir + "/two.mkv", seconds: 2)
        let mpv = try MPVHandle(options: headless, separateProcess: separateProcess)
        let length = try #require(try mpv.probeLength(dir + "/two.mkv", timeout: 10))
        #expect(abs(length - 2) < 0.05)
        // What the player's own mpv plays is untouched.
        #expect(mpv.string("path") == nil)
        #expect(throws: MPVError.self) { try mpv.probeLength(dir + "/none.mkv", timeout: 10) }
    }

    @Test func clientAPIVersion() {
        #expect(mpvClientAPIVersion.hasPrefix("2."))
    }
}
