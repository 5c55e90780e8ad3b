import Blocking
import Foundation
import Glibc
import Picture
import TestSupport
import Testing

/// `upright play` of a SMIL index under a headless sway (1280 × 720), its media served over HTTP
/// on loopback: the zones at once on screen, the main region's items in their order, the status,
/// the proof of play, the player's identity in the User-Agent, the cache offline, and bad input.
@Suite("SMIL indexes played", .serialized)
struct SMILPlayTests {
    /// The index: a main region with a sequence (video, picture, video, a picture that is not
    /// there), a side picture and a brush, all at once; one element it does not know.
    static let index = """
        <smil>
          <head>
            <meta http-equiv="Refresh" content="60"/>
            <layout><root-layout width="1280" height="720"/>
              <region regionName="main" left="0" top="0" width="75%" height="100%"/>
              <region regionName="side" left="75%" top="0" width="25%" height="50%" backgroundColor="#000080"/>
              <region regionName="corner" left="75%" top="50%" width="25%" height="50%"/>
            </layout>
          </head>
          <body>
            <par>
              <seq repeatCount="indefinite">
                <video xml:id="first" src="blue.mp4" region="main"/>
                <img xml:id="second" src="red.png" region="main" dur="1.5s" fit="fill"/>
                <video xml:id="third" src="media/green.mp4" region="main"/>
                <img xml:id="gone" src="gone.png" region="main" dur="0.5s"/>
              </seq>
              <img xml:id="side" src="yellow.png" region="side" dur="indefinite" fit="fill"/>
              <brush color="#ff00ff" region="corner" dur="indefinite"/>
              <blink/>
            </par>
          </body>
        </smil>
        """

    /// A one-colour video of `seconds`.
    static func video(_ path: String, colour: String, seconds: Double) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=320x240:r=25:d=\(seconds)",
            "-c:v", "mpeg4", path,
        ]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("ffmpeg could not make \(path)") }
    }

    /// The colour class at a point of a screenshot: blue, red, green, yellow, magenta, navy, black.
    static func colour(_ p: Picture, _ x: Int, _ y: Int) -> String {
        let c = p.rgb(x * p.width / 1280, y * p.height / 720)
        let (r, g, b) = (Int(c.r), Int(c.g), Int(c.b))
        switch (r > 150, g > 100, b > 150) {
        case (true, true, false): return "yellow"
        case (true, false, true): return "magenta"
        case (true, false, false): return "red"
        case (false, true, false): return "green"
        case (false, false, true): return "blue"
        default: return b > 90 && r < 40 && g < 40 ? "navy" : (max(r, g, b) < 30 ? "black" : "other(\(r),\(g),\(b))")
        }
    }

    /// The screen now: the main region's middle, the side region's and the corner's.
    static func look(socket: String, dir: String) async throws -> [String]? {
        guard let (png, _) = await RemoteItemsTests.screenshot(socket: socket) else { return nil }
        try png.write(to: URL(fileURLWithPath: dir + "/shot.png"))
        let picture = try await Blocking.run { try Clips.picture(png: dir + "/shot.png", ppm: dir + "/shot.ppm") }
        guard let picture else { return nil }
        return [colour(picture, 480, 400), colour(picture, 1120, 180), colour(picture, 1120, 540)]
    }

    /// The SMIL part of `ctl status`.
    static func smil(_ socket: String) async throws -> [String: Any] {
        try await RemoteItemsTests.status(socket)["smil"] as? [String: Any] ?? [:]
    }

    /// What the status says the main region shows (its element's id).
    static func mainID(_ smil: [String: Any]) -> String? {
        let zones = smil["zones"] as? [[String: Any]] ?? []
        return zones.first { $0["region"] as? String == "main" }?["id"] as? String
    }

    /// The main region's element ids, in the order the proof of play at `path` says they played.
    static func mainOrder(_ path: String) -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            guard let play = (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any],
                play["region"] as? String == "main"
            else { return nil }
            return play["id"] as? String
        }
    }

    /// Waits (50 ms a look) until `check` holds, `seconds` at most: whether it did.
    static func until(seconds: Double, _ check: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if check() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// `upright play` under `sway` with `config`, its control socket in the sway's folder.
    static func play(_ config: String, sway: HeadlessSway, state: String) throws -> (SignalTests.Play, String) {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "XDG_CURRENT_DESKTOP", "DBUS_SESSION_BUS_ADDRESS"] { environment[name] = nil }
        environment.merge(sway.environment) { $1 }
        environment["STATE_DIRECTORY"] = state
        let socket = sway.directory + "/control.sock"
        let play = try SignalTests.Play(
            ["--config", config, "--uri", "none", "--vo", "wlshm", "--control", socket], environment: environment)
        return (play, socket)
    }

    /// `upright play` running under a headless sway; ``stop()`` ends both.
    struct Running {
        let sway: HeadlessSway
        let play: SignalTests.Play
        let socket: String

        func stop() {
            play.process.send(SIGKILL)
            sway.stop()
        }
    }

    /// `upright play` of `dir`/upright.toml under a headless sway (1280 × 720), its state in
    /// `dir`/state.
    static func start(_ dir: String) throws -> Running {
        let sway = try HeadlessSway(mode: "1280x720")
        do {
            let (play, socket) = try Self.play(dir + "/upright.toml", sway: sway, state: dir + "/state")
            return Running(sway: sway, play: play, socket: socket)
        } catch {
            sway.stop()
            throw error
        }
    }

    @Test func aServedIndexShowsItsZonesAtOnceInOrderFromTheCacheEvenOffline() async throws {
        // The media beside the index, in its folder and one below.
        let dir = try RemoteItemsTests.site(
            "smil", pictures: ["screens/red.png": "red", "screens/yellow.png": "yellow"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.video(dir + "/www/screens/blue.mp4", colour: "blue", seconds: 1.5)
        try Self.video(dir + "/www/screens/media/green.mp4", colour: "green", seconds: 1)
        try Self.index.write(toFile: dir + "/www/screens/lobby.smil", atomically: true, encoding: .utf8)
        let server = try FileServer(root: dir + "/www", requests: dir + "/requests.log")
        let url = server.url("screens/lobby.smil")
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = ["\(url)"]
        [cache]
        directory = "\(dir)/cache"
        [proof_of_play]
        file = "\(dir)/plays.jsonl"
        [mqtt]
        device = "lobby screen"
        """.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let running = try Self.start(dir)
        defer { running.stop() }
        let (play, socket) = (running.play, running.socket)

        // The main region's items in their order, twice round, from the proof of play (a status
        // read every 50 ms may miss the half-second picture on a loaded machine).
        let plays = dir + "/plays.jsonl"
        _ = await Self.until(seconds: 40) { Self.mainOrder(plays).count >= 8 }
        let order = Self.mainOrder(plays)
        let cycle = ["first", "second", "third", "gone"]
        let start = order.firstIndex(of: "first") ?? 0
        #expect(
            Array(order[start...].prefix(5)) == cycle + ["first"], "\(order)\n\(play.stderr)")
        // The status names what the main region shows now.
        var smil: [String: Any] = [:]
        for _ in 0..<100 {
            smil = try await Self.smil(socket)
            if Self.mainID(smil) != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(cycle.contains(Self.mainID(smil) ?? "none"), "\(smil)")
        #expect(smil["index"] as? String == url)
        #expect((smil["etag"] as? String)?.hasPrefix("\"") == true, "\(smil)")
        #expect(smil["refresh"] as? Double == 60)
        let refused = smil["refused"] as? [String] ?? []
        #expect(refused.contains { $0.hasPrefix("\(url):20:") && $0.contains("'blink'") }, "\(refused)")
        let faults = smil["faults"] as? [String] ?? []
        #expect(faults.contains { $0.contains("gone.png") }, "\(faults)")

        // Every zone at once: a main item, the side picture, the corner's brush.
        var seen: [String] = []
        for _ in 0..<60 {
            seen = try await Self.look(socket: socket, dir: dir) ?? []
            if seen.count == 3, ["blue", "red", "green"].contains(seen[0]), seen[1...] == ["yellow", "magenta"] {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(seen.count == 3 && seen[1...] == ["yellow", "magenta"], "\(seen)")

        // The server gone: the cached copies play on, in order.
        server.stop()
        let shown = Self.mainOrder(plays).count
        _ = await Self.until(seconds: 20) { Self.mainOrder(plays).count >= shown + 5 }
        let after = Array(Self.mainOrder(plays).dropFirst(shown))
        #expect(after.contains("first") && after.contains("third"), "\(after)\n\(play.stderr)")
        #expect(play.process.isRunning)

        // Who asked: the player's identity, its UUID kept in the state directory.
        let uuid = (try? String(contentsOfFile: dir + "/state/player-id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let requests = (try? String(contentsOfFile: dir + "/requests.log", encoding: .utf8)) ?? ""
        #expect(uuid != nil)
        #expect(
            requests.contains("/screens/lobby.smil ADAPI/2.0 (UUID:\(uuid ?? "?"); NAME:lobby-screen) Upright-Linux/"),
            "\(requests)")
        #expect(requests.contains("/screens/media/green.mp4 ADAPI/2.0"), "\(requests)")

        // The proof of play: each zone's items, with their region and id (the main region's above).
        play.process.send(SIGTERM)
        play.process.waitUntilExit()
        let text = (try? String(contentsOfFile: plays, encoding: .utf8)) ?? ""
        let records = text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(
            records.contains {
                $0["region"] as? String == "side" && ($0["item"] as? String)?.hasSuffix("yellow.png") == true
            }, "\(text)")
    }

    @Test func aMalformedIndexIsRefusedAtItsLineAndPlaysOnceMended() async throws {
        let dir = NSTemporaryDirectory() + "smil-bad-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try RemoteItemsTests.picture(dir + "/red.png", colour: "red")
        let index = dir + "/index.smil"
        try "<smil><body>\n<seq>\n<img src=\"red.png\" dur=\"5s\">\n</seq></body></smil>\n".write(
            toFile: index, atomically: true, encoding: .utf8)
        try "[lock]\nevdev = \"none\"\n[player]\nplaylist = [\"\(index)\"]\n".write(
            toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let running = try Self.start(dir)
        defer { running.stop() }
        let (play, socket) = (running.play, running.socket)
        #expect(await play.waitFor("index.smil:4:"), "\(play.stderr)")
        var smil = try await Self.smil(socket)
        let problem = smil["problem"] as? String ?? ""
        #expect(problem.hasPrefix("\(index):4:") && problem.contains("'img'"), "\(problem)")
        #expect(play.process.isRunning)
        // Mended: read again within its interval (5 s for a file), and played.
        try "<smil><body>\n<seq>\n<img xml:id=\"red\" src=\"red.png\" dur=\"5s\"/>\n</seq></body></smil>\n".write(
            toFile: index, atomically: true, encoding: .utf8)
        var shown = false
        for _ in 0..<100 {
            smil = try await Self.smil(socket)
            let zones = smil["zones"] as? [[String: Any]] ?? []
            shown = zones.contains { $0["region"] as? String == "root" && $0["id"] as? String == "red" }
            if shown { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(shown, "\(smil)\n\(play.stderr)")
        #expect(smil["problem"] == nil)
    }

    /// An index whose right half waits: for its left half to be tapped (`activateEvent`), for a
    /// key (`accesskey(w)`), for a notification (`notify(go)`). Each, in turn, shows its brush there.
    static let triggers = """
        <smil><head><layout><root-layout width="1280" height="720"/>
          <region regionName="left" left="0" top="0" width="50%" height="100%"/>
          <region regionName="right" left="50%" top="0" width="50%" height="100%"/>
        </layout></head><body><par>
          <brush xml:id="button" color="#0000ff" region="left" dur="indefinite"/>
          <excl dur="indefinite">
            <brush xml:id="waiting" color="#000000" region="right" begin="0" dur="indefinite"/>
            <brush xml:id="tapped" color="#ff0000" region="right" begin="button.activateEvent" dur="indefinite"/>
            <brush xml:id="keyed" color="#00ff00" region="right" begin="accesskey(w)" dur="indefinite"/>
            <brush xml:id="told" color="#ffff00" region="right" begin="notify(go)" dur="indefinite"/>
          </excl>
        </par></body></smil>
        """

    /// What the status says `region` shows (its element's id), once it is `id` (`seconds` at most).
    static func waitFor(_ id: String, in region: String, socket: String, seconds: Int = 10) async throws -> String? {
        var now: String?
        for _ in 0..<(seconds * 10) {
            let zones = try await smil(socket)["zones"] as? [[String: Any]] ?? []
            now = zones.first { $0["region"] as? String == region }?["id"] as? String
            if now == id { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return now
    }

    @Test func aTapAKeyAndANotificationEachBeginWhatWaitsForThem() async throws {
        let dir = NSTemporaryDirectory() + "smil-triggers-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.triggers.write(toFile: dir + "/index.smil", atomically: true, encoding: .utf8)
        try "[lock]\nevdev = \"none\"\n[player]\nplaylist = [\"\(dir)/index.smil\"]\n".write(
            toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let running = try Self.start(dir)
        defer { running.stop() }
        let (play, socket, sway) = (running.play, running.socket, running.sway)
        #expect(try await Self.waitFor("waiting", in: "right", socket: socket) == "waiting", "\(play.stderr)")

        // A tap on the right half is on nothing that waits; one on the left half begins "tapped".
        _ = try await upright(["ctl", "--socket", socket, "touch-check", "tap", "960", "360"])
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.waitFor("waiting", in: "right", socket: socket) == "waiting")
        let tap = try await upright(["ctl", "--socket", socket, "touch-check", "tap", "320", "360"])
        #expect(tap.status == 0, "\(tap.stdout)")
        #expect(try await Self.waitFor("tapped", in: "right", socket: socket) == "tapped", "\(play.stderr)")

        // A key typed into the window: a virtual keyboard in sway, made for the key and gone after
        // it. A keyboard that comes and goes at once can lose its key on a loaded machine (mpv
        // takes the new keymap first), so it waits 0.3 s either side, and types again while the
        // status does not say the key came (pressed again, the key begins the same element).
        var keyed: String?
        for _ in 0..<5 where keyed != "keyed" {
            let wtype = Process()
            wtype.executableURL = URL(fileURLWithPath: "/usr/bin/wtype")
            wtype.arguments = ["-s", "300", "w", "-s", "300"]
            wtype.environment = ProcessInfo.processInfo.environment.merging(sway.environment) { $1 }
            try wtype.run()
            wtype.waitUntilExit()
            #expect(wtype.terminationStatus == 0)
            keyed = try await Self.waitFor("keyed", in: "right", socket: socket, seconds: 3)
        }
        #expect(keyed == "keyed", "\(play.stderr)")
        // On screen, though the index plays no video: mpv's window is made for the index at once.
        var seen: [String] = []
        for _ in 0..<30 {
            seen = try await Self.look(socket: socket, dir: dir) ?? []
            if seen.prefix(2) == ["blue", "green"] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(seen.prefix(2) == ["blue", "green"], "\(seen)")

        // A notification: by `ctl`, as by MQTT's command/notify; one nothing waits for is refused.
        let told = try await upright(["ctl", "--socket", socket, "notify", "go"])
        #expect(told.status == 0, "\(told.stdout)")
        #expect(try await Self.waitFor("told", in: "right", socket: socket) == "told")
        let stray = try await upright(["ctl", "--socket", socket, "notify", "stray"])
        #expect(stray.status != 0 && stray.stdout.contains("nothing waits for notify(stray)"), "\(stray.stdout)")
        #expect(play.process.isRunning)
    }

    /// An index with no video: its audio is mpv's, heard (mpv writes what it plays to a WAV file
    /// here, as fast as it decodes), and its end is the sound's own; a brush follows it.
    @Test func anIndexWithNoVideoPlaysItsAudioToItsEnd() async throws {
        let dir = NSTemporaryDirectory() + "smil-audio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/cache", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = Process()
        tone.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        tone.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1.5", dir + "/tone.wav",
        ]
        try tone.run()
        tone.waitUntilExit()
        try """
        <smil><body><seq>
          <audio xml:id="tone" src="tone.wav"/>
          <brush xml:id="after" color="#00ff00" dur="indefinite"/>
        </seq></body></smil>
        """.write(toFile: dir + "/index.smil", atomically: true, encoding: .utf8)
        // The sound to a file in the cache's folder (mpv's process may write there).
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = ["\(dir)/index.smil"]
        [player.mpv]
        ao = "pcm"
        ao-pcm-file = "\(dir)/cache/heard.wav"
        [cache]
        directory = "\(dir)/cache"
        [proof_of_play]
        file = "\(dir)/plays.jsonl"
        """.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let running = try Self.start(dir)
        defer { running.stop() }
        let (play, socket) = (running.play, running.socket)
        #expect(try await Self.waitFor("after", in: "root", socket: socket) == "after", "\(play.stderr)")
        // A 440 Hz tone: samples far from silence (16-bit, after the 44-byte header).
        let heard = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/cache/heard.wav"))) ?? Data()
        let samples = heard.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.count > 20_000 && samples.contains { abs(Int($0)) > 8_000 }, "\(heard.count) bytes")
        play.process.send(SIGTERM)
        play.process.waitUntilExit()
        let plays = (try? String(contentsOfFile: dir + "/plays.jsonl", encoding: .utf8)) ?? ""
        #expect(plays.contains("\"region\": \"audio\"") && plays.contains("\"id\": \"tone\""), "\(plays)")
    }

    /// A reload from a playlist with nothing in it (the test pattern plays) to an index of a
    /// picture alone: mpv, idle once the pattern stops, keeps its window for the picture. (mpv
    /// 0.35 makes a window for `force-window` only as it goes idle, not when the option is set
    /// while it is idle.)
    @Test func aReloadToAnIndexOfAPictureAloneShowsItInMpvsWindow() async throws {
        let dir = NSTemporaryDirectory() + "smil-reload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/cache", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        <smil><body><brush xml:id="green" color="#00ff00" dur="indefinite"/></body></smil>
        """.write(toFile: dir + "/index.smil", atomically: true, encoding: .utf8)
        let config = { (playlist: String) in
            "[lock]\nevdev = \"none\"\n[player]\nplaylist = \(playlist)\n[cache]\ndirectory = \"\(dir)/cache\"\n"
        }
        try config("[]").write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let running = try Self.start(dir)
        defer { running.stop() }
        let (play, socket) = (running.play, running.socket)
        #expect(await play.waitFor("playing "), "\(play.stderr)")
        try config("[\"\(dir)/index.smil\"]").write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        #expect(await play.hangUp(until: "configuration reloaded"), "\(play.stderr)")
        #expect(try await Self.waitFor("green", in: "root", socket: socket) == "green", "\(play.stderr)")
        // The screen as the compositor shows it (mpv takes no picture of a window with no video):
        // the brush is drawn in mpv's window, else the desktop's grey shows (63, 63, 63).
        var seen: [[String]?] = []
        for _ in 0..<40 {
            seen.append(try await Self.look(socket: socket, dir: dir))
            if seen.last == ["green", "green", "green"] { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(seen.last == ["green", "green", "green"], "\(seen)\n\(play.stderr)")
    }
}
