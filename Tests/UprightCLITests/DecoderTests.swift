import Foundation
import Glibc
import TestSupport
import Testing

/// Which decoder plays, in `ctl status` and `doctor`, from a real `upright play`.
@Suite("The decoder in the status")
struct DecoderTests {
    @Test func statusAndDoctorNameTheDecoderAndItsDroppedFrames() async throws {
        let (dir, config) = try configuredFolder(
            "decoder",
            configuration: """
                [lock]
                evdev = "none"
                [player]
                playlist = ["av://lavfi:testsrc2=s=320x240:r=25"]
                hwdec = "no"
                """)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/upright/control.sock"  // where doctor looks, with XDG_RUNTIME_DIR=dir
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        var status = ""
        for _ in 0..<50 where !status.contains(#""decoder": {"#) {
            try await Task.sleep(for: .milliseconds(200))
            status = try await upright(["ctl", "--socket", socket, "status"]).stdout
        }
        #expect(
            status.contains(
                #""decoder": {"hwdec": "software", "codec": "rawvideo", "decoder_drops": 0, "output_drops": "#),
            "\(status)")

        let doctor = try await upright(
            ["doctor", "--config", config, "--uri", "none"],
            environment: ["XDG_RUNTIME_DIR": dir, "PATH": "/usr/bin:/bin"])
        #expect(doctor.stdout.contains(#"decoder: hwdec = "no" ([player])"#), "\(doctor.stdout)")
        #expect(
            doctor.stdout.contains("decoder playing now: software for rawvideo, 0 frame(s) dropped by the decoder, "),
            "\(doctor.stdout)")
    }

    /// A clip too heavy for the machine on a real screen (120 frames a second, blurred, through
    /// mpv's software output): the output drops frames, and the status counts them.
    @Test func theDroppedFramesOfAClipTooHeavyAreCounted() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let config = """
            [lock]
            evdev = "none"
            [player]
            playlist = ["av://lavfi:testsrc2=s=1280x720:r=120,gblur=sigma=20"]
            """
        let (play, socket) = try CompositorTests.play(beside: sway, config: config, vo: "wlshm")
        defer { play.process.send(SIGKILL) }
        var drops = 0
        var status = ""
        for _ in 0..<50 where drops == 0 {
            try await Task.sleep(for: .milliseconds(200))
            status = try await upright(["ctl", "--socket", socket, "status"]).stdout
            if let match = status.firstMatch(of: /"output_drops": (\d+)/) { drops = Int(match.1) ?? 0 }
        }
        #expect(drops > 0, "\(status)")
        #expect(status.contains(#""hwdec": "software", "codec": "rawvideo""#), "\(status)")
    }
}
