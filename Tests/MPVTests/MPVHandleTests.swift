import MPV
import Playback
import TestSupport
import Testing

let headless = [("vo", "null"), ("ao", "null"), ("idle", "yes"), ("terminal", "no")]
let testPattern = "av://lavfi:testsrc=size=640x360:rate=25"

@Suite("libmpv handle", .serialized)
struct MPVHandleTests {
    @Test func createsAHeadlessPlayerAndReadsTypedProperties() throws {
        let mpv = try MPVHandle(options: headless)
        #expect(try mpv.get(.mpvVersion).hasPrefix("mpv "))
        #expect(mpv.string("vo") == "null")
        try mpv.set(.pause, true)
        #expect(try mpv.get(.pause))
        #expect(mpv.string("no-such-property") == nil)
    }

    @Test func errorsNameTheCallAndMpvsMessage() throws {
        #expect(
            throws: MPVError(call: "mpv_set_option_string(no-such-option=1)", message: "option not found", code: -5)
        ) {
            try MPVHandle(options: [("no-such-option", "1")])
        }
        let mpv = try MPVHandle(options: headless)
        #expect(throws: MPVError(call: "mpv_get_property(no-such-property)", message: "property not found", code: -8)) {
            _ = try mpv.get("no-such-property", as: .int64)
        }
        #expect(throws: MPVError.self) { try mpv.command(["no-such-command"]) }
    }

    @Test func playsATestPatternAndTurnsItWithoutRestarting() async throws {
        let mpv = try MPVHandle(options: headless)
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

    @Test func keyBindingsArriveAsClientMessages() async throws {
        let mpv = try MPVHandle(options: headless)
        try mpv.command(["keybind", "f", "script-message upright-fullscreen"])
        try mpv.command(["keypress", "f"])
        let seen = await waitFor(mpv.events) { if case .clientMessage = $0 { true } else { false } }
        #expect(seen?.last == .clientMessage(["upright-fullscreen"]))
    }

    @Test func aMissingFileEndsWithAnError() async throws {
        let mpv = try MPVHandle(options: headless)
        try mpv.command(["loadfile", "/nonexistent/video.mp4"])
        let seen = await waitFor(mpv.events) { if case .endFile = $0 { true } else { false } }
        guard case .endFile(let reason, let error, _) = seen?.last else {
            Issue.record("no end-file event: \(String(describing: seen))")
            return
        }
        #expect(reason == "error")
        #expect(error == "loading failed")
    }

    @Test func observedPropertiesAndShutdown() async throws {
        let mpv = try MPVHandle(options: headless)
        try mpv.observe("pause", as: .flag)
        try mpv.set(.pause, true)
        #expect(await waitFor(mpv.events) { $0 == .propertyChange(name: "pause", value: .flag(true)) } != nil)
        mpv.quit()
        #expect(await waitFor(mpv.events) { $0 == .shutdown } != nil)
    }

    @Test func clientAPIVersion() {
        #expect(mpvClientAPIVersion.hasPrefix("2."))
    }
}
