import Display
import Foundation
import OrientationCore
import Settings
import TestSupport
import Testing

/// Every Wayland backend against a real headless sway, one sway per test.
@Suite("Display backends on a real headless sway", .serialized)
struct SwayTests {
    static let backends: [DisplayBackendKind] = [.sway, .wlroots]

    func controller(
        _ kind: DisplayBackendKind, _ sway: HeadlessSway, state: String, natural: InterfaceOrientation = .portrait
    )
        -> DisplayController
    {
        var settings = DisplaySettings()
        settings.backend = DisplayBackendChoice(rawValue: kind.rawValue)!
        settings.natural = natural
        settings.mode = OutputState.Mode("800x1280")
        return DisplayController(settings: settings, stateDirectory: state, environment: sway.environment)
    }

    @Test(arguments: backends)
    func turnsThroughTheFourOrientationsAndRestores(kind: DisplayBackendKind) async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let display = controller(kind, sway, state: sway.directory + "/state")
        let abilities = await display.start()
        let status = await display.status
        #expect(abilities == .kiosk, "\(status)")
        #expect(await display.status.output == "HEADLESS-1")
        for (o, expected) in [
            (InterfaceOrientation.landscapeRight, "90"), (.portraitUpsideDown, "180"), (.landscapeLeft, "270"),
            (.portrait, "normal"), (.landscapeRight, "90"),
        ] {
            let failure = await display.apply(o)
            #expect(failure == nil)
            #expect(try sway.transform() == expected, "\(kind) \(o)")
        }
        #expect(FileManager.default.fileExists(atPath: await display.statePath))
        await display.restore()
        #expect(try sway.transform() == "normal")
        #expect(!FileManager.default.fileExists(atPath: await display.statePath))
    }

    @Test func theNaturalOrientationIsComposedWithTheRequest() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let display = controller(.sway, sway, state: sway.directory + "/state", natural: .landscapeRight)
        _ = await display.start()
        _ = await display.apply(.portrait)
        #expect(try sway.transform() == "270")
        _ = await display.apply(.landscapeRight)
        #expect(try sway.transform() == "normal")
    }

    @Test func aRunThatDiedIsRestoredAtTheNextStart() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let state = sway.directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // A record left by a process that no longer runs, which had turned the output by 90°.
        let dead = Int32(999_999)
        try #"{"backend":"sway","output":"HEADLESS-1","clockwise":0,"pid":\#(dead)}"#
            .write(toFile: state + "/display-sway.json", atomically: true, encoding: .utf8)
        try sway.swaymsg(["output", "HEADLESS-1", "transform", "90"])
        let display = controller(.sway, sway, state: state)
        _ = await display.start()
        #expect(try sway.transform() == "normal")
        #expect(await display.status.reason.contains("restored HEADLESS-1"))
    }

    @Test func aVanishedCompositorIsAFaultNotACrash() async throws {
        let sway = try HeadlessSway()
        let display = controller(.sway, sway, state: sway.directory + "/state")
        #expect(await display.start() == .kiosk)
        sway.stop()
        let failure = await display.apply(.landscapeRight)
        #expect(failure != nil)
        let status = await display.status
        #expect(status.problem?.contains("sway") == true, "\(status)")
        #expect(await display.probe().canRotateOutput == false)  // the policy falls back to the surface
    }

    @Test func autoDetectionPrefersSwaysSocket() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let (backend, reason) = await DisplayDetection.backend(
            DisplaySettings(), environment: sway.environment)
        #expect(backend.kind == .sway)
        #expect(reason.contains("SWAYSOCK"))
        var onlyWayland = sway.environment
        onlyWayland["SWAYSOCK"] = nil
        #expect(await DisplayDetection.backend(DisplaySettings(), environment: onlyWayland).backend.kind == .wlroots)
        #expect(await DisplayDetection.backend(DisplaySettings(), environment: [:]).backend.kind == .none)
    }

    /// sway names each output's monitor (make, model, serial); `[display] output` set to that
    /// name turns that output, and the status shows it.
    @Test func anOutputIsNamedByItsMonitor() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let outputs = try await SwayBackend(socketPath: sway.environment["SWAYSOCK"]!).outputs()
        let first = try #require(outputs.first)
        let identity = try #require(first.identity, "sway says each output's make, model and serial")
        var settings = DisplaySettings()
        settings.output = identity
        settings.backend = .sway
        let display = DisplayController(
            settings: settings, stateDirectory: sway.directory + "/state", environment: sway.environment)
        _ = await display.start()
        let status = await display.status
        #expect(status.output == first.name && status.identity == identity, "\(status)")
        await display.restore()
    }
}

@Suite("The screen's power on a real headless sway", .serialized)
struct SwayPowerTests {
    /// sway's word for the output's power: `power` (1.8 on) or `dpms` (1.7).
    static func powered(_ sway: HeadlessSway) throws -> Bool? {
        let first = try sway.outputs().first
        return first?.power ?? first?.dpms
    }

    @Test func offAndOnAgain() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let display = DisplayController.forTest(.sway, directory: sway.directory, environment: sway.environment)
        _ = await display.start()
        #expect(try Self.powered(sway) == true)
        // sway accepts both commands. Its headless output in 1.7 keeps reporting "dpms": true
        // (it has no power to switch), so the state read back is the real one only on hardware.
        #expect(await display.setPower(false) == nil)
        #expect(try Self.powered(sway) != nil)
        #expect(await display.setPower(true) == nil)
        #expect(try Self.powered(sway) == true)
    }
}
