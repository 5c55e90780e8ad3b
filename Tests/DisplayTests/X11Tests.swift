import Display
import Foundation
import OrientationCore
import Settings
import TestSupport
import Testing

/// A real X server (Xvfb). Its RandR offers no rotation, so this checks what can be checked here:
/// the capability is seen and reported, the policy's abilities fall back to the surface, and
/// touchscreens are looked for. Turning an X output and setting a touch matrix could not be
/// tested: no X server here can rotate (Xvfb offers `normal` only) or has a touchscreen.
@Suite("X11 backend on a real Xvfb", .serialized)
struct X11Tests {
    final class Xvfb: Sendable {
        let process: Process
        let display: String
        init() throws {
            // -noreset: with no client of its own here, the server resets after each helper
            // (xrandr, xinput) disconnects, and one that connects during the reset is refused
            // ("Unable to connect to X server"; under load, 1 run in 10). A desktop's X server
            // always has clients, Upright's mpv among them.
            let (p, number) = try Process.startedWithFirstLine(
                "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "800x1280x24", "-nolisten", "tcp", "-noreset"])
            process = p
            display = ":" + number
        }
        func stop() {
            // Foundation starts children with the calling thread's signal mask, and the test's
            // threads block SIGTERM: only SIGKILL is sure to end the server.
            process.send(SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func aServerThatCannotTurnIsReportedAndTheSurfaceTurnsInstead() async throws {
        let x = try Xvfb()
        defer { x.stop() }
        let display = DisplayController(
            settings: DisplaySettings(), stateDirectory: NSTemporaryDirectory() + "upright-x11-\(getpid())",
            environment: ["DISPLAY": x.display])
        let abilities = await display.start()
        #expect(await display.backend.kind == .x11)
        #expect(abilities.canRotateOutput == false)
        let status = await display.status
        #expect(status.output == "screen")
        #expect(status.problem == "x11 cannot turn screen at run time: only the video surface turns")
        #expect(await display.apply(.landscapeRight) != nil)
        #expect(abilities.strategy(for: .auto) == .surface)
    }

    @Test func touchscreensAreFoundByTheirTouchClass() async throws {
        let x = try Xvfb()
        defer { x.stop() }
        // Xvfb's devices are a relative mouse and a keyboard: no touch class, nothing to map.
        // (Its X server also ignores a new coordinate transformation matrix on them, so setting
        // one could not be checked here; the matrices themselves are checked in TransformTests.)
        let backend = X11Backend(display: x.display)
        let output = try #require(try await backend.outputs().first)
        #expect(try await backend.mapTouch(to: output, transform: OutputTransform(clockwise: 90)) == [])
        #expect(try await backend.touchMatrix(of: "Xvfb mouse") == OutputTransform.normal.touchMatrix)
    }
}
