import Blocking
import Control
import Foundation
import Glibc
import Picture
import Session
import TestSupport
import Testing
import UprightDaemon
import Wire

/// Remote playlist items through a real `upright play` and a real HTTP server on loopback: played
/// from the cache, kept when the server is gone (a restart too), a new version taken at an item
/// change, and a download that is wrong never played.
@Suite("Remote items from the cache", .serialized)
struct RemoteItemsTests {
    /// A one-colour PNG made by ffmpeg.
    static func picture(_ path: String, colour: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=64x64", "-frames:v", "1", path,
        ]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("ffmpeg could not make \(path)") }
    }

    /// A new folder whose `www` holds one-colour pictures (their paths under `www` → colours).
    static func site(_ name: String, pictures: [String: String]) throws -> String {
        let dir = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8))"
        for (path, colour) in pictures {
            let file = dir + "/www/" + path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try picture(file, colour: colour)
        }
        return dir
    }

    /// `upright play` of `playlist` with the cache in `dir` (and `extra` lines of `[cache]`),
    /// with its control socket.
    static func play(_ dir: String, playlist: [String], cache extra: String = "") throws -> (SignalTests.Play, String) {
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        image_duration = 1
        playlist = [\(playlist.map { "\"\($0)\"" }.joined(separator: ", "))]
        [cache]
        directory = "\(dir)/cache"
        \(extra)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        return (
            try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket]), socket
        )
    }

    /// The colour in the middle of the video frame, from `ctl screenshot` (read through ffmpeg).
    static func centreColour(socket: String, dir: String) async throws -> (Int, Int, Int)? {
        try await centreColourAndTime(socket: socket, dir: dir)?.colour
    }

    /// The same, with when the screenshot's answer came (before its picture is read: that takes
    /// a process of its own, which a loaded machine may hold back). Asked on the control socket
    /// from this process, as `ctl screenshot` asks it: an `upright ctl` process's own start, a
    /// second on a loaded machine, would count as the screen's time.
    static func centreColourAndTime(socket: String, dir: String) async throws -> (colour: (Int, Int, Int), at: Date)? {
        let png = dir + "/shot.png", ppm = dir + "/shot.ppm"
        guard let (shot, at) = await screenshot(socket: socket) else { return nil }
        try shot.write(to: URL(fileURLWithPath: png))
        let colour: (Int, Int, Int)? = try await Blocking.run {
            guard let picture = try Clips.picture(png: png, ppm: ppm) else { return nil }
            let c = picture.rgb(picture.width / 2, picture.height / 2)
            return (Int(c.r), Int(c.g), Int(c.b))
        }
        return colour.map { ($0, at) }
    }

    /// The PNG of a `screenshot` request on the control socket at `socket`, and when its answer
    /// came; `nil` when none could be taken.
    static func screenshot(socket: String) async -> (png: Data, at: Date)? {
        guard let line = try? await ControlClient.send(#"{"command": "screenshot"}"#, to: socket) else { return nil }
        let at = Date()
        guard let shot = ControlReply(line: line)?.screenshot, let png = Data(base64Encoded: shot.png) else {
            return nil
        }
        return (png, at)
    }

    static func status(_ socket: String) async throws -> [String: Any] {
        let out = try await upright(["ctl", "--socket", socket, "status"]).stdout
        let reply = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any]
        return reply?["status"] as? [String: Any] ?? [:]
    }

    static func cache(_ status: [String: Any]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for item in status["cache"] as? [[String: Any]] ?? [] { out[item["url"] as? String ?? ""] = item }
        return out
    }

    @Test func playedFromTheCacheKeptWithoutTheServerRenewedAtAnItemChangeAndNeverWhenWrong() async throws {
        let dir = try Self.site("remote", pictures: ["red.png": "red", "wrong.png": "blue", "cut.png": "blue"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var server = try FileServer(root: dir + "/www")
        let port = server.port
        let (red, wrong, cut) = (server.url("red.png"), server.url("wrong.png"), server.url("truncated/cut.png"))
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        image_duration = 1
        playlist = [
            "\(red)",
            { path = "\(wrong)", sha256 = "\(String(repeating: "0", count: 64))" },
            "\(cut)",
        ]
        [cache]
        directory = "\(dir)/cache"
        refresh = 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let arguments = ["--config", config, "--uri", "none", "--vo", "null", "--control", socket]
        var play = try SignalTests.Play(arguments)
        defer { play.process.send(SIGKILL) }

        // Downloaded and played; the wrong one and the cut one are never played.
        var status: [String: Any] = [:]
        var played: Set<String> = []
        for _ in 0..<60 {
            try await Task.sleep(for: .milliseconds(100))
            status = try await Self.status(socket)
            if let p = status["playing"] as? String { played.insert(p) }
            if played.contains(red), Self.cache(status)[wrong]?["problem"] != nil,
                Self.cache(status)[cut]?["problem"] != nil
            {
                break
            }
        }
        let cache = Self.cache(status)
        #expect(cache[red]?["state"] as? String == "cached", "\(status)")
        #expect((cache[red]?["file"] as? String)?.hasPrefix(dir + "/cache/") == true, "\(status)")
        #expect(cache[wrong]?["state"] as? String == "missing", "\(status)")
        #expect((cache[wrong]?["problem"] as? String)?.contains("sha256") == true, "\(status)")
        #expect(cache[cut]?["state"] as? String == "missing", "\(status)")
        #expect(played == [red], "\(played)")
        let colour = try await Self.centreColour(socket: socket, dir: dir)
        if colour.map({ $0.0 > 200 && $0.1 < 60 && $0.2 < 60 }) != true {
            let answer = (try? await ControlClient.send(#"{"command": "screenshot"}"#, to: socket))?.prefix(300)
            Issue.record(
                "the centre: \(String(describing: colour)); a screenshot now: \(answer ?? "none")\n\(play.stderr)")
        }

        // A new version on the server: asked for within a second, played from the next item change.
        try Self.picture(dir + "/www/red.png", colour: "lime")
        var green = false
        for _ in 0..<40 where !green {
            try await Task.sleep(for: .milliseconds(250))
            green = try await Self.centreColour(socket: socket, dir: dir).map { $0.1 > 200 && $0.0 < 60 } ?? false
        }
        #expect(green, "the new version is played")

        // The server gone and Upright started again: it plays what it has, and says it is stale.
        server.stop()
        play.process.send(SIGTERM)
        let first = play
        await Blocking.run { first.process.waitUntilExit() }
        let started = Date()
        play = try SignalTests.Play(arguments)
        var again: String?
        for _ in 0..<100 where again == nil {
            try await Task.sleep(for: .milliseconds(50))
            again = try await Self.status(socket)["playing"] as? String
        }
        #expect(again == red && Date().timeIntervalSince(started) < 5, "\(play.stderr)")
        var stale = ""
        for _ in 0..<40 where stale != "stale" {
            try await Task.sleep(for: .milliseconds(100))
            stale = Self.cache(try await Self.status(socket))[red]?["state"] as? String ?? ""
        }
        #expect(stale == "stale")
        let kept = try await Self.centreColour(socket: socket, dir: dir)
        #expect(kept.map { $0.1 > 200 } == true, "\(String(describing: kept))")

        // The server back: the item is cached (confirmed) again.
        server = try FileServer(root: dir + "/www", port: port)
        defer { server.stop() }
        var back = ""
        for _ in 0..<80 where back != "cached" {
            try await Task.sleep(for: .milliseconds(100))
            back = Self.cache(try await Self.status(socket))[red]?["state"] as? String ?? ""
        }
        #expect(back == "cached")
    }
}

extension RemoteItemsTests {
    /// A remote playlist file (`.m3u`: one URL a line, relative ones from the list's address):
    /// the list and each of its files are cached, and its files play in turn.
    @Test func aRemoteListPlaysEachOfItsFilesFromTheCache() async throws {
        let dir = try Self.site("remote-list", pictures: ["red.png": "red", "more/blue.png": "blue"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# the shop's loop\nred.png\n\n/more/blue.png\n".write(
            toFile: dir + "/www/loop.m3u", atomically: true, encoding: .utf8)
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let (play, socket) = try Self.play(dir, playlist: [server.url("loop.m3u")])
        defer { play.process.send(SIGKILL) }
        var played: Set<String> = []
        var status: [String: Any] = [:]
        for _ in 0..<80 where played.count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            status = try await Self.status(socket)
            if let p = status["playing"] as? String { played.insert(p) }
        }
        #expect(played == [server.url("red.png"), server.url("more/blue.png")], "\(played) \(play.stderr)")
        let cache = Self.cache(status)
        #expect(cache.count == 3 && cache.values.allSatisfy { $0["state"] as? String == "cached" }, "\(status)")
    }

    /// A remote list mixing lines that name local files, devices, filter graphs and protocols
    /// with one good clip: the clip plays; no other line reaches mpv, each is logged and listed
    /// among the failed items with why, and the filter that would write a file never runs.
    @Test func aRemoteListsLinesThatAreNotNetworkMediaNeverPlay() async throws {
        let dir = try Self.site("remote-hostile", pictures: ["red.png": "red"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pwned = dir + "/X/pwned"
        try FileManager.default.createDirectory(atPath: dir + "/X", withIntermediateDirectories: true)
        let hostile = [
            "file:///etc/hostname", "av://lavfi:testsrc=d=2,metadata=mode=print:file=\(pwned)",
            "av://v4l2:/dev/video0", "edl://file:///etc/os-release", "memory://hello",
            "lavf://concat:/etc/hostname", "unix:///run/x.sock",
        ]
        try (hostile + ["red.png"]).joined(separator: "\n").write(
            toFile: dir + "/www/loop.m3u", atomically: true, encoding: .utf8)
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let (play, socket) = try Self.play(dir, playlist: [server.url("loop.m3u")])
        defer { play.process.send(SIGKILL) }
        var status: [String: Any] = [:]
        var playedRed = 0
        for _ in 0..<60 where playedRed < 2 {
            try await Task.sleep(for: .milliseconds(250))
            status = try await Self.status(socket)
            if status["playing"] as? String == server.url("red.png") { playedRed += 1 }
        }
        #expect(playedRed >= 2, "\(status)\n\(play.stderr)")
        let failed = (status["failed"] as? [[String: Any]] ?? []).compactMap { $0["item"] as? String }
        #expect(Set(failed) == Set(hostile), "\(status)")
        for line in hostile {
            #expect(play.stderr.contains("cannot play \(line): refused: "), "\(line)\n\(play.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: pwned))
        #expect(play.process.isRunning)
    }

    /// A download whose body stalls (1 KB of 50 MB, then silence: the fault proxy holds it) first
    /// in the playlist: the next remote item downloads beside it and plays, and the stalled one
    /// fails after the read timeout, reported with its URL, to be asked again with back-off.
    @Test func aStalledDownloadHoldsUpNoOtherAndIsReported() async throws {
        let dir = try Self.site("remote-stalled", pictures: ["red.png": "red"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 50 MB with no blocks on the disk: the server reads zeros.
        _ = FileManager.default.createFile(atPath: dir + "/www/a.mp4", contents: nil)
        try FileHandle(forWritingAtPath: dir + "/www/a.mp4").map { try $0.truncate(atOffset: 50_000_000) }
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let proxy = try FaultProxy(upstream: server.port)
        defer { proxy.stop() }
        try proxy.set(.stall(afterBytes: 1000), paths: "a.mp4")
        let stalled = proxy.url("a.mp4")
        let (play, socket) = try Self.play(dir, playlist: [stalled, proxy.url("red.png")], cache: "read_timeout = 2")
        defer { play.process.send(SIGKILL) }
        var status: [String: Any] = [:]
        var red: Date?
        let start = Date()
        for _ in 0..<80 {
            try await Task.sleep(for: .milliseconds(250))
            status = try await Self.status(socket)
            if red == nil, status["playing"] as? String == proxy.url("red.png") { red = Date() }
            if red != nil, Self.cache(status)[stalled]?["problem"] != nil { break }
        }
        let plays = try #require(red, "\(status)\n\(play.stderr)").timeIntervalSince(start)
        #expect(plays < 10, "\(plays)")
        let problem = Self.cache(status)[stalled]?["problem"] as? String ?? ""
        #expect(problem.contains("stalled") && problem.contains("timed out"), "\(status)")
        #expect(play.stderr.contains("cache: \(stalled): \(stalled): stalled: no data for 2"), "\(play.stderr)")
        // No partial file is left.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/cache")) ?? []
        #expect(!left.contains { $0.hasPrefix(".part-") }, "\(left)")
    }
}
