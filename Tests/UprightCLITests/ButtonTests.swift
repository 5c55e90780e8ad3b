import Blocking
import Foundation
import Glibc
import Input
import OrientationCore
import Session
import TestSupport
import Testing

/// Buttons and remotes through `upright play`: input devices fed by FIFOs carrying the real
/// `input_event` layout (this machine has no `/dev/input`), the session and libmpv real.
@Suite("Buttons, remotes and clips through upright play", .serialized)
struct ButtonTests {
    /// A directory with a FIFO named `event0` and a configuration that reads it.
    struct Setup {
        let directory: String
        let fifo: String
        let config: String
        let socket: String

        init(_ toml: String) throws {
            directory =
                FileManager.default.temporaryDirectory.appendingPathComponent("buttons-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fifo = directory + "/event0"
            guard mkfifo(fifo, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
            config = directory + "/upright.toml"
            socket = directory + "/control.sock"
            try ("[lock]\nevdev = \"none\"\n[player.mpv]\nao = \"null\"\n[input]\ndevices = [\"\(fifo)\"]\n" + toml)
                .write(
                    toFile: config, atomically: true, encoding: .utf8)
        }

        func play() throws -> SignalTests.Play {
            try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        }

        /// Writes records to the FIFO as a device would: open, write, close.
        func press(_ bytes: [UInt8]) async {
            let fifo = fifo
            // Without a reader (Upright not reading) open fails with ENXIO: tried for 5 s, never blocked on.
            var fd: Int32 = -1
            for _ in 0..<100 {
                fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }

        func status() async throws -> String { try await upright(["ctl", "--socket", socket, "status"]).stdout }
    }

    /// The decisions of the log whose cause is `cause`.
    static func decisions(_ log: String, cause: String) -> [RotationDecision.Record] {
        log.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(RotationDecision.Record.self, from: Data($0.utf8))
        }.filter { $0.cause == cause }
    }

    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func keyF11FromADeviceTogglesFullScreenAndTheDeviceComesBackAfterItWasRemoved() async throws {
        let setup = try Setup("[hotkeys]\nfullscreen = [\"f\", \"KEY_F11\"]\n")
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        let play = try setup.play()
        defer { play.process.send(SIGKILL) }
        #expect(
            await play.waitFor("input: opened \(setup.fifo) (a pipe of input_event records): KEY_F11"), "\(play.stderr)"
        )
        // The device opens while mpv's process still starts (seconds on a loaded machine): a press
        // then waits for the session's start. The key is judged once the session plays.
        #expect(await play.waitFor("playing av://lavfi:testsrc2=size=1280x720"), "\(play.stderr)")

        // An unbound key, a repeat with no press, then one press of KEY_F11 held (repeats) and released.
        var bytes = InputRecord.click(30)
        bytes += [InputRecord.key(87, InputRecord.repeated), .syn].flatMap(\.bytes)
        bytes += [InputRecord.key(87, InputRecord.pressed), .syn].flatMap(\.bytes)
        for _ in 0..<4 { bytes += [InputRecord.key(87, InputRecord.repeated), .syn].flatMap(\.bytes) }
        bytes += [InputRecord.key(87, InputRecord.released), .syn].flatMap(\.bytes)
        await setup.press(bytes)
        #expect(
            await Self.eventually(5) { !Self.decisions(play.stdout, cause: "fullscreen").isEmpty }, "\(play.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let first = Self.decisions(play.stdout, cause: "fullscreen")
        #expect(first.count == 1, "one press, one action: \(play.stdout)")
        #expect(first.first?.scene == "fullscreen" && first.first?.decision == .rotate)
        let status = try await setup.status()
        #expect(status.contains(#""scenes": ["inline", "fullscreen"]"#), "\(status)")
        #expect(status.contains("(a pipe of input_event records): KEY_F11"), "\(status)")

        // The device goes away and comes back (unplugged, plugged again): it is opened again.
        unlink(setup.fifo)
        #expect(await play.waitFor("input: closed \(setup.fifo): it went away"), "\(play.stderr)")
        #expect(mkfifo(setup.fifo, 0o600) == 0)
        await setup.press(InputRecord.click(87))
        #expect(
            await Self.eventually(5) { Self.decisions(play.stdout, cause: "fullscreen").count == 2 }, "\(play.stderr)")
        #expect(Self.decisions(play.stdout, cause: "fullscreen").last?.scene == "inline")
        #expect(play.process.isRunning)
    }

    @Test func aButtonPlaysAClipOnceInItsOwnOrientationAndTheLoopComesBack() async throws {
        let clip = "av://lavfi:testsrc2=size=480x640:rate=25:duration=4"
        let setup = try Setup(
            """
            [hotkeys]
            "play promo" = "BTN_0"
            [scenes.promo]
            supported = ["landscape-left"]
            clip = "\(clip)"
            """)
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        let play = try setup.play()
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing av://lavfi:testsrc2=size=1280x720"), "\(play.stderr)")
        #expect(await play.waitFor("input: opened \(setup.fifo)"), "\(play.stderr)")

        await setup.press(InputRecord.click(0x100))
        #expect(await play.waitFor("playing \(clip)"), "\(play.stderr)")
        await setup.press(InputRecord.click(0x100))  // during the clip: ignored
        let during = try await setup.status()
        #expect(during.contains(#""clip": "promo""#) && during.contains(#""interface": "landscape-left""#), "\(during)")
        #expect(await play.waitFor("ignored, the clip 'promo' plays"), "\(play.stderr)")

        // It ends by itself: the scene goes, the orientation and the loop come back.
        #expect(
            await Self.eventually(12) { !Self.decisions(play.stdout, cause: "clip-ended").isEmpty }, "\(play.stderr)")
        let entered = Self.decisions(play.stdout, cause: "play")
        #expect(
            entered.first?.interface == .landscapeLeft && entered.first?.scene == "promo")
        let back = Self.decisions(play.stdout, cause: "clip-ended")
        #expect(back.first?.interface == .portrait && back.first?.scene == "inline")
        #expect(await play.waitFor("playing av://lavfi:testsrc2=size=1280x720", seconds: 5))
        try await Task.sleep(for: .seconds(1))
        let after = try await setup.status()
        #expect(
            after.contains(#""clip": null"#) && after.contains(#""playing": "av://lavfi:testsrc2=size=1280x720"#),
            "\(after)")
        let clipStarts = play.stderr.components(separatedBy: "playing \(clip)").count - 1
        #expect(clipStarts == 1, "the clip plays once: \(play.stderr)")
    }
}

/// `fit_content`: the scene's orientations narrowed to the shape of the item playing.
@Suite("Fitting the content's shape through upright play")
struct FitContentTests {
    @Test func aPortraitItemShowsInPortraitAndALandscapeOneInLandscape() async throws {
        let config = try temporaryFile(
            """
            [lock]
            evdev = "none"
            [scenes.inline]
            supported = ["portrait", "landscape-right", "landscape-left"]
            fit_content = true
            [player]
            playlist = ["av://lavfi:testsrc2=size=480x640:rate=25:duration=2",
                        "av://lavfi:testsrc2=size=640x480:rate=25:duration=2"]
            [player.mpv]
            ao = "null"
            """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright([
            "play", "--config", config, "--uri", "none", "--vo", "null", "--no-control", "--duration", "12",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let turns = ButtonTests.decisions(run.stdout, cause: "content").filter { $0.decision == .rotate }
        let shown = turns.map(\.interface.name)
        // Portrait first (already shown), then landscape for the landscape item, portrait again.
        #expect(shown.count >= 2 && shown[0].hasPrefix("landscape") && shown[1] == "portrait", "\(run.stdout)")
    }
}
