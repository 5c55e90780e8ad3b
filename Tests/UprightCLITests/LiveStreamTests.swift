import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// Live streams through a real `upright play` and real servers on loopback: an RTSP server
/// (GStreamer's RTSP server library) and an HLS stream made by ffmpeg and served over HTTP. The
/// server is stopped for 10 s and started again, ten times in a row: the screen turns to the slate
/// (the splash) and stays on it, never black nor the frozen picture, and the stream comes back on
/// screen once the server does. The times are measured, not judged, here (the suite loads the
/// machine): bounds of 3 s and 5 s catch a slate or a return that does not come; the figures are
/// `make bench`'s. Each time is when mpv answered the screenshot that showed it, and one
/// screenshot may take a second or two on a loaded machine (a full `make test` once measured a
/// slate at 2.03 s among nine of 0.15-0.44 s); any look after 2 s that shows no slate is wrong.
@Suite("Live streams and their slate")
struct LiveStreamPlayTests {
    /// A server that can be stopped and started again on its port.
    protocol Server: AnyObject {
        var url: String { get }
        func stop()
        func start() throws
    }

    final class RTSPServer: Server, @unchecked Sendable {  // driven by one test at a time
        var process: Process?
        var port = 0
        let colour: String
        init(colour: String) throws {
            self.colour = colour
            try start()
        }
        var url: String { "rtsp://127.0.0.1:\(port)/stream" }
        func start() throws {
            let (p, line) = try Process.startedWithFirstLine(
                "/usr/bin/python3", [fixture("rtsp-server.py"), String(port), colour])
            guard let bound = Int(line) else {
                p.send(SIGKILL)
                throw HarnessError(
                    "the RTSP server did not start (GStreamer's RTSP server: gir1.2-gst-rtsp-server-1.0)")
            }
            (process, port) = (p, bound)
        }
        func stop() {
            process?.send(SIGKILL)
            process?.waitUntilExit()
        }
    }

    /// ffmpeg writing a live HLS stream (1 s segments) into a folder, served by ``FileServer``.
    final class HLSServer: Server, @unchecked Sendable {
        let directory: String
        let encoder = Process()
        var http: FileServer?
        var port = 0
        init(directory: String, colour: String) throws {
            self.directory = directory
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            encoder.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            encoder.arguments = [
                "-loglevel", "error", "-re", "-f", "lavfi", "-i", "color=c=\(colour):s=320x240:r=25", "-c:v",
                "mpeg2video", "-g", "25", "-f", "hls", "-hls_time", "1", "-hls_list_size", "4", "-hls_flags",
                "delete_segments", directory + "/live.m3u8",
            ]
            try encoder.run()
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: directory + "/live.m3u8") {
                usleep(50_000)
            }
            try start()
        }
        var url: String { "http://127.0.0.1:\(port)/live.m3u8" }
        func start() throws {
            http = try FileServer(root: directory, port: port)
            port = http!.port
        }
        func stop() { http?.stop() }
        func end() {
            stop()
            encoder.send(SIGKILL)
            encoder.waitUntilExit()
        }
    }

    /// The colour in the middle of the video frame (`ctl screenshot`), as "splash", "stream",
    /// "black" or "other".
    static func seen(socket: String, dir: String, stream: (Int, Int, Int) -> Bool) async throws -> String {
        try await seenAt(socket: socket, dir: dir, stream: stream).what
    }

    /// The same, with when the screenshot was answered (``RemoteItemsTests/centreColourAndTime(socket:dir:)``).
    static func seenAt(
        socket: String, dir: String, stream: (Int, Int, Int) -> Bool
    ) async throws -> (what: String, at: Date) {
        guard let (c, at) = try await RemoteItemsTests.centreColourAndTime(socket: socket, dir: dir) else {
            return ("none", Date())
        }
        if c.2 > 180 && c.0 < 80 && c.1 < 80 { return ("splash", at) }
        if stream(c.0, c.1, c.2) { return ("stream", at) }
        if c.0 < 30 && c.1 < 30 && c.2 < 30 { return ("black", at) }
        return ("other \(c)", at)
    }

    /// Ten outages of 10 s: the slate within `slateWithin` each time and for the whole outage,
    /// the stream again after the server's return (within `backWithin`), and on screen for a
    /// second after. Returns the times measured. The figures on an idle machine (the issue's 1 s
    /// and 2 s) are `make bench`'s (`bench_remote.py`, grim's screenshots); here, with the whole
    /// suite beside it, the return is judged by the 5 s the test waits for it: mpv's own
    /// screenshot of a live stream on a loaded machine fails now and then for seconds after its
    /// first frame ("Taking screenshot failed" in its log, the stream loaded 0.1 s after its
    /// server's return), so the first one that shows the stream can come 3.5 s after it.
    static func outages(
        of server: some Server, stream: @escaping (Int, Int, Int) -> Bool, name: String, slateWithin: Double,
        backWithin: Double
    ) async throws -> (slate: [Double], back: [Double], wrong: [String], late: [String]) {
        let dir = NSTemporaryDirectory() + "live-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try RemoteItemsTests.picture(dir + "/splash.png", colour: "blue")
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        splash = "\(dir)/splash.png"
        playlist = ["\(server.url)"]
        [player.mpv]
        log-file = "\(dir)/mpv.log"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        var now = "none"
        for _ in 0..<100 where now != "stream" {
            try await Task.sleep(for: .milliseconds(100))
            now = try await seen(socket: socket, dir: dir, stream: stream)
        }
        guard now == "stream" else { throw HarnessError("\(name): the stream never played: \(now)\n\(play.stderr)") }
        var slate: [Double] = [], back: [Double] = [], wrong: [String] = [], late: [String] = []
        for cycle in 0..<10 {
            server.stop()
            let stopped = Date()
            var slateAt: Double?
            while Date().timeIntervalSince(stopped) < 10 {
                let asked = Date().timeIntervalSince(stopped)
                let (s, at) = try await seenAt(socket: socket, dir: dir, stream: stream)
                let t = at.timeIntervalSince(stopped)
                if s == "splash" {
                    if slateAt == nil { slateAt = t }
                    // Late: where the time went (the screenshot asked before it, answered after;
                    // what Upright and mpv did meanwhile, with mpv's own times).
                    if slateAt == t, t > slateWithin {
                        late.append(
                            "cycle \(cycle): the slate in the screenshot asked at \(String(format: "%.3f", asked)) s, "
                                + "answered at \(String(format: "%.3f", t)) s; \(Self.logs(dir, play))")
                    }
                } else if slateAt != nil || t > slateWithin {
                    wrong.append("cycle \(cycle) at \(String(format: "%.2f", t)) s: \(s)")
                }
                // A screenshot takes about 0.1 s: looked at as often until the slate shows, the
                // times are that close; then twice a second, so that the screenshots (mpv encodes
                // each in its playback loop) do not make the stream they watch stall.
                try await Task.sleep(for: .milliseconds(slateAt != nil ? 500 : 20))
            }
            if let slateAt { slate.append(slateAt) }
            try server.start()
            let started = Date()
            // Looked for twice as long as it may take, so that a slow return is told with its time
            // (and the next cycle starts from the stream playing).
            var backAt: Double?
            var looks: [String] = []  // what each screenshot showed, for a failure's message
            while backAt == nil, Date().timeIntervalSince(started) < 2 * backWithin {
                let (s, at) = try await seenAt(socket: socket, dir: dir, stream: stream)
                if s == "stream" { backAt = at.timeIntervalSince(started) }
                looks.append("\(String(format: "%.1f", at.timeIntervalSince(started))) \(s)")
                try await Task.sleep(for: .milliseconds(150))
            }
            guard let backAt else {
                wrong.append(
                    "cycle \(cycle): the stream did not come back; seen: \(looks.joined(separator: ", ")); "
                        + Self.logs(dir, play))
                continue
            }
            back.append(backAt)
            if backAt > backWithin {
                wrong.append("cycle \(cycle): back after \(backAt) s; \(Self.logs(dir, play))")
            }
            // Back, it stays: for a second, the stream and nothing else.
            let returned = Date()
            while Date().timeIntervalSince(returned) < 1 {
                let (s, at) = try await seenAt(socket: socket, dir: dir, stream: stream)
                if s != "stream" {
                    let t = String(format: "%.2f", at.timeIntervalSince(started))
                    wrong.append(
                        "cycle \(cycle): at \(t) s, after the stream came back: \(s); \(Self.logs(dir, play))"
                    )
                    break
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        #expect(play.process.isRunning, "\(play.stderr)")
        return (slate, back, wrong, late)
    }

    /// What Upright said lately (why it lost a stream) and what mpv did.
    static func logs(_ dir: String, _ play: SignalTests.Play) -> String {
        let upright = play.stderr.split(separator: "\n").suffix(12).joined(separator: "\n")
        return "Upright's log: \(upright)\nmpv's log: \(mpvEvents(dir + "/mpv.log"))"
    }

    /// What mpv did lately, from its log file: loads, ends, outputs and complaints, the last 40.
    static func mpvEvents(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let marks = [
            "loadfile", "EOF code", "VO: [", "Opening done", "[w]", "[e]", "Failed", "failed", "reload", "screenshot",
            "speed", "pause",
        ]
        let lines = text.split(separator: "\n").filter { line in marks.contains { line.contains($0) } }
        return lines.suffix(40).map { String($0.prefix(160)) }.joined(separator: "\n")
    }

    @Test func rtspServerStoppedTenTimes() async throws {
        let server = try RTSPServer(colour: "0xff00ff00")
        defer { server.stop() }
        let (slate, back, wrong, late) = try await Self.outages(
            of: server, stream: { r, g, b in g > 180 && r < 80 && b < 80 }, name: "rtsp", slateWithin: 2, backWithin: 5)
        #expect(wrong.isEmpty, "\(wrong)")
        print(
            "\(#function): the slate after \(slate.map { ($0 * 1000).rounded() }) ms, back after \(back.map { ($0 * 1000).rounded() }) ms"
        )
        #expect(slate.count == 10 && slate.allSatisfy { $0 <= 3 }, "the slate after: \(slate); \(late)")
        #expect(back.count == 10 && back.allSatisfy { $0 <= 5 }, "the stream back after: \(back)")
    }

    @Test func hlsServerStoppedTenTimes() async throws {
        let server = try HLSServer(
            directory: NSTemporaryDirectory() + "hls-\(UUID().uuidString.prefix(8))", colour: "red")
        defer {
            server.end()
            try? FileManager.default.removeItem(atPath: server.directory)
        }
        let (slate, back, wrong, late) = try await Self.outages(
            of: server, stream: { r, g, b in r > 180 && g < 80 && b < 80 }, name: "hls", slateWithin: 2, backWithin: 5)
        // The server's going away is seen by Upright's idle connection to it, before mpv has
        // played out the segment it holds.
        #expect(wrong.isEmpty, "\(wrong)")
        print(
            "\(#function): the slate after \(slate.map { ($0 * 1000).rounded() }) ms, back after \(back.map { ($0 * 1000).rounded() }) ms"
        )
        #expect(slate.count == 10 && slate.allSatisfy { $0 <= 3 }, "the slate after: \(slate); \(late)")
        #expect(back.count == 10 && back.allSatisfy { $0 <= 5 }, "the stream back after: \(back)")
    }
}

/// `latency = N` on a real stream: mpv buffers that much before the stream plays, and the speed
/// holds what it has ahead near N; `ctl status` says so.
@Suite("A live stream's latency")
struct LiveStreamLatencyTests {
    @Test func anRTSPStreamIsHeldAtItsLatency() async throws {
        let server = try LiveStreamPlayTests.RTSPServer(colour: "0xff00ff00")
        defer { server.stop() }
        let (dir, config) = try configuredFolder(
            "latency",
            configuration: """
                [lock]
                evdev = "none"
                [player]
                playlist = [{ path = "\(server.url)", latency = 1.5 }]
                """)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        var held: [Double] = [], speeds: [Double] = []
        for _ in 0..<120 where held.count < 20 {
            try await Task.sleep(for: .milliseconds(250))
            guard let status = try? await RemoteItemsTests.status(socket),
                let stream = status["stream"] as? [String: Any]
            else { continue }
            #expect(stream["url"] as? String == server.url && stream["latency"] as? Double == 1.5, "\(stream)")
            // From when mpv has buffered what it waits for (it holds the first picture meanwhile).
            guard let b = stream["buffered"] as? Double, b >= 1.2 || !held.isEmpty else { continue }
            held.append(b)
            if let s = stream["speed"] as? Double { speeds.append(s) }
        }
        #expect(held.count == 20, "the stream's status: \(held); the log: \(play.stderr.suffix(1500))")
        // Held near 1.5 s once mpv has buffered that much, never run dry.
        let median = held.sorted()[held.count / 2]
        #expect(abs(median - 1.5) < 0.4 && held.allSatisfy { $0 > 0.5 }, "held: \(held)")
        #expect(speeds.allSatisfy { $0 >= 0.95 && $0 <= 1.05 }, "speeds: \(speeds)")
        #expect(play.process.isRunning, "\(play.stderr)")
    }
}

/// A lost stream with no splash configured, judged by the compositor's own screenshot (grim),
/// not by mpv's: the HLS stream's HTTP server stopped, the built-in slate is on the screen (never
/// the bare desktop), with `[display] backend` "sway" and "none", and the stream comes back. The
/// same through the fault proxy, the server up and the network between failing. The scenes allow
/// one orientation, the one that turns nothing (the idle scene's default, portrait, would turn
/// sway's output; with no backend, landscape-right turns the picture on its surface).
@Suite("A lost stream's slate on the screen")
struct LostStreamScreenTests {
    static func slate(_ c: (r: UInt8, g: UInt8, b: UInt8)) -> Bool {
        c.r < 40 && c.g > 16 && c.g < 56 && c.b > 44 && c.b < 90
    }
    static func stream(_ c: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { c.r > 180 && c.g < 80 && c.b < 80 }

    /// `upright play` of `url` in a 640×360 headless sway with `backend`, full screen.
    final class Session: @unchecked Sendable {  // driven by one test at a time
        let sway: HeadlessSway
        let play: SignalTests.Play
        var seen: (r: UInt8, g: UInt8, b: UInt8) = (0, 0, 0)

        init(sway: HeadlessSway, url: String, backend: String) throws {
            self.sway = sway
            // Nothing turned: the panel's own orientation (with sway the output shows it at transform 0;
            // with no backend the picture is not turned on its surface).
            let shown = "landscape-right"
            (play, _) = try CompositorTests.play(
                beside: sway,
                config: """
                    [lock]
                    evdev = "none"
                    [app]
                    launch = "\(shown)"
                    [display]
                    backend = "\(backend)"
                    natural = "landscape-right"
                    [scenes.idle]
                    supported = ["\(shown)"]
                    [scenes.inline]
                    supported = ["\(shown)"]
                    [player]
                    playlist = ["\(url)"]
                    [player.mpv]
                    fullscreen = "yes"
                    """, vo: "wlshm")
        }

        func end() { play.process.send(SIGKILL) }

        /// The stream (4:3) by the screen's centre; the slate by a point beside the stream's
        /// picture (where the desktop would show) or at the top (the layout's margins may keep the
        /// picture from the sides).
        func look(_ test: ((r: UInt8, g: UInt8, b: UInt8)) -> Bool, at x: Int = 320) throws -> Bool {
            let shot = try sway.screenshot()
            seen = shot.rgb(x * shot.width / 640, shot.height / 2)
            if test(seen) { return true }
            guard x != 320 else { return false }
            seen = shot.rgb(shot.width / 2, 5)
            return test(seen)
        }

        /// Whether the slate shows within `seconds`, and after how long.
        func slateShows(within seconds: Double) async -> (shown: Bool, after: Double) {
            let lost = Date()
            let slated = await CompositorTests.eventually(seconds) { try look(LostStreamScreenTests.slate, at: 40) }
            return (slated, Date().timeIntervalSince(lost))
        }

        /// What showed other than the stream and the slate, looked at every 0.2 s for `seconds`.
        func neitherStreamNorSlate(for seconds: Double) async throws -> [String] {
            var wrong: [String] = []
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if try !look(LostStreamScreenTests.slate, at: 40), !LostStreamScreenTests.stream(seen) {
                    wrong.append("\(seen)")
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            return wrong
        }
    }

    @Test(arguments: ["sway", "none"])
    func theBuiltInSlateShowsUntilTheStreamReturns(backend: String) async throws {
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        let server = try LiveStreamPlayTests.HLSServer(directory: sway.directory + "/hls", colour: "red")
        defer { server.end() }
        let session = try Session(sway: sway, url: server.url, backend: backend)
        defer { session.end() }
        #expect(await CompositorTests.eventually(20) { try session.look(Self.stream) }, "\(session.seen)")
        server.stop()
        let (slated, after) = await session.slateShows(within: 5)
        let shot = try sway.screenshot()
        #expect(
            slated && after <= 2,
            "the slate after \(after) s: \(session.seen); centre \(shot.rgb(shot.width / 2, shot.height / 2)), \(shot.width)x\(shot.height), top \(shot.rgb(shot.width / 2, 5))\n\(session.play.stderr)"
        )
        // It stays while the server is away (no window closing on the desktop).
        try await Task.sleep(for: .seconds(3))
        #expect(try session.look(Self.slate, at: 40), "\(session.seen)")
        try server.start()
        let back = await CompositorTests.eventually(10) { try session.look(Self.stream) }
        #expect(back, "\(session.seen)\n\(session.play.stderr)")
    }

    /// The HLS server stays up; the fault proxy between stalls every transfer, resets every
    /// connection, then answers 503 for the playlist alone (its segments still pass). Each time
    /// the slate comes once mpv has played out what it held (a stall and a 503 are seen only then),
    /// stays while the fault lasts (a TCP connection to the proxy succeeds throughout: the stream
    /// is asked again over HTTP), nothing else shows, and the stream is back once the proxy passes.
    @Test func theSlateShowsThroughAStallAResetAndA503OnThePlaylist() async throws {
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        let server = try LiveStreamPlayTests.HLSServer(directory: sway.directory + "/hls", colour: "red")
        defer { server.end() }
        let proxy = try FaultProxy(upstream: server.port)
        defer { proxy.stop() }
        let session = try Session(sway: sway, url: proxy.url("live.m3u8"), backend: "sway")
        defer { session.end() }
        #expect(await CompositorTests.eventually(20) { try session.look(Self.stream) }, "\(session.seen)")
        for (fault, paths) in [(FaultProxy.Fault.stall(), ""), (.reset, ""), (.status(503), ".m3u8")] {
            try proxy.set(fault, paths: paths)
            // mpv holds a few 1 s segments; the slate follows once they have played.
            let (slated, after) = await session.slateShows(within: 10)
            #expect(slated, "\(fault): no slate after \(after) s: \(session.seen)\n\(session.play.stderr)")
            let wrong = try await session.neitherStreamNorSlate(for: 3)
            #expect(try session.look(Self.slate, at: 40) && wrong.isEmpty, "\(fault): \(session.seen), \(wrong)")
            try proxy.set(.pass)
            let back = Date()
            let returned = await CompositorTests.eventually(10) { try session.look(Self.stream) }
            #expect(returned, "\(fault): not back after \(Date().timeIntervalSince(back)) s: \(session.seen)")
            print(
                "fault proxy, \(fault): the slate after \(after) s, the stream \(Date().timeIntervalSince(back)) s after the fault ended"
            )
        }
    }
}
