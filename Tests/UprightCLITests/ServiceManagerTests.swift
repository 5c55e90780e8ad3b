import Blocking
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import UprightDaemon

/// `upright play` under a service manager: a datagram socket stands in for systemd's
/// `NOTIFY_SOCKET`, and a FIFO for a stream that stalls.
@Suite("upright play as a systemd service", .serialized)
struct ServiceManagerTests {
    /// systemd's side of `sd_notify`: a datagram socket collecting what the service says.
    final class NotifySocket: Sendable {
        let path: String
        private let fd: Int32
        private let messages = Mutex<[String]>([])

        init() throws {
            path = NSTemporaryDirectory() + "upright-notify-\(UUID().uuidString.prefix(8)).sock"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
            var tv = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// Reads what arrives for `seconds`, off the cooperative pool.
        func collect(for seconds: Double) async -> [String] {
            await Blocking.run {
                let end = Date().addingTimeInterval(seconds)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while Date() < end {
                    let n = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                    if n > 0 { self.messages.withLock { $0.append(String(decoding: buffer[..<n], as: UTF8.self)) } }
                }
                return self.messages.withLock { $0 }
            }
        }
    }

    @Test func readyStatusAndTheWatchdogReachTheServiceManager() async throws {
        let notify = try NotifySocket()
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["WATCHDOG_USEC"] = "400000"  // a keep-alive every 0.2 s
        environment["WATCHDOG_PID"] = nil
        let play = try SignalTests.Play(
            ["--uri", "none", "--vo", "null", "--no-control", "--duration", "3"], environment: environment)
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        let messages = await notify.collect(for: 3.5)
        let ready = messages.firstIndex { $0.split(separator: "\n").contains("READY=1") }
        #expect(ready != nil, "\(messages) \(play.stderr)")
        #expect(messages.contains { $0.contains("STATUS=playing Test pattern") }, "\(messages)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 5, "\(messages)")
    }
}

/// A video stream over HTTP that stalls (`Fixtures/stalling-stream.py`): its first `stalling`
/// requests send `frames` frames at 25 fps and then nothing, keeping the connection open; later
/// ones play without end. (A stall must be something mpv can abandon: a FIFO's blocking read is
/// not, a network read is.)
final class StallingStream: @unchecked Sendable {  // the pipe holds its own lock
    let process = Process()
    private let out = CollectedPipe()

    init(frames: Int, stalling: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixture("stalling-stream.py"), String(frames), String(stalling)]
        process.standardOutput = out.pipe
        process.standardError = FileHandle.nullDevice  // nothing of it may keep the test's output open
        try process.run()
    }

    // SIGKILL: a child of a Swift concurrency thread starts with SIGTERM blocked.
    deinit { process.send(SIGKILL) }

    private var lines: [Substring] { out.text.split(separator: "\n") }
    /// The requests served so far.
    var requests: Int { lines.filter { $0.hasPrefix("request") }.count }

    /// The stream's URL, once the server listens.
    func url() async -> String? {
        for _ in 0..<200 {
            if let port = lines.first, Int(port) != nil { return "http://127.0.0.1:\(port)/stream.y4m" }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }
}

@Suite("The control socket in a unit's runtime directory")
struct UnitRuntimeDirectoryTests {
    /// Under a unit with `RuntimeDirectory=upright`, the socket is there, open to the group (0660),
    /// where `upright ctl` of a member of `upright` finds it.
    @Test func theUnitsRuntimeDirectoryHoldsASocketForTheGroup() async throws {
        let parent = NSTemporaryDirectory() + "upright-unit-\(UUID().uuidString.prefix(8))"
        let runtime = parent + "/upright"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        var environment = ProcessInfo.processInfo.environment
        environment["RUNTIME_DIRECTORY"] = runtime
        environment["UPRIGHT_CONTROL"] = nil
        let play = try SignalTests.Play(["--uri", "none", "--vo", "null"], environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("control socket: \(runtime)/control.sock (for its group too)"), "\(play.stderr)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: runtime + "/control.sock")[.posixPermissions] as? Int
        #expect(mode == 0o660)
        #expect(controlSocketIsShared(runtime + "/control.sock", ["RUNTIME_DIRECTORY": runtime]))
        #expect(!controlSocketIsShared("/run/user/1000/upright/control.sock", ["XDG_RUNTIME_DIR": "/run/user/1000"]))
        #expect(controlSocketIsShared("/run/upright/control.sock", [:]))
    }
}

@Suite("Stalled streams", .serialized)
struct StallTests {
    static func configuration() throws -> String {
        try temporaryFile("[player]\nstall_timeout = 2\nloop = true\n[display]\nbackend = \"none\"\n")
    }

    @Test func aStalledStreamIsLoadedAgainAndPlaysOn() async throws {
        // The first request stalls after 1 s of video; the next plays on.
        let stream = try StallingStream(frames: 25, stalling: 1)
        let url = try #require(await stream.url())
        let config = try Self.configuration()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control", url])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playback stalled on \(url): loading it again", seconds: 15), "\(play.stderr)")
        // Loaded again, it plays on: no second stall.
        try await Task.sleep(for: .seconds(4))
        // (mpv may open a stream once more on its own on a loaded machine: the stalls are what count.)
        #expect(stream.requests >= 2)
        #expect(play.stderr.components(separatedBy: "playback stalled").count == 2, "\(play.stderr)")
        #expect(play.process.isRunning)
    }

    /// A live stream (a URL without a media file's extension) that keeps stalling is never given
    /// up on: each stall is a stream lost and found again, as live streams come and go. (A file
    /// that keeps stalling still ends the process: `PlaybackCoreTests`.)
    @Test func aLiveStreamThatKeepsStallingIsNeverGivenUp() async throws {
        let stream = try StallingStream(frames: 10, stalling: 100)
        let url = try #require(await stream.url())
        let config = try Self.configuration()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control", url])
        defer { play.process.send(SIGKILL) }
        // Each stall is a new request (the log says a repeated line once, then counts it).
        for _ in 0..<300 where stream.requests < 5 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(stream.requests >= 5, "\(play.stderr)")
        #expect(play.process.isRunning, "\(play.stderr)")
        #expect(!play.stderr.contains("playback stalled 3 times"), "\(play.stderr)")
    }
}
