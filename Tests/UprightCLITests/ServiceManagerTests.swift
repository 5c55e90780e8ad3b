import Blocking
import Control
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
            // The sender's credentials with each message, as systemd reads them.
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size))
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// Reads what arrives for `seconds`, off the cooperative pool.
        func collect(for seconds: Double) async -> [String] {
            await collectWithSenders(for: seconds).map(\.message)
        }

        /// The same, each message with the process ID the kernel gave as its sender's.
        func collectWithSenders(for seconds: Double) async -> [(message: String, sender: pid_t)] {
            await Blocking.run {
                let end = Date().addingTimeInterval(seconds)
                var found: [(message: String, sender: pid_t)] = []
                while Date() < end {
                    if let got = self.receive() { found.append(got) }
                }
                self.messages.withLock { $0 += found.map(\.message) }
                return found
            }
        }

        private func receive() -> (message: String, sender: pid_t)? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; } in an SCM_CREDENTIALS message.
            var control = [UInt8](repeating: 0, count: 64)
            return buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { ancillary in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vector in
                        var header = msghdr()
                        header.msg_iov = vector
                        header.msg_iovlen = 1
                        header.msg_control = ancillary.baseAddress
                        header.msg_controllen = ancillary.count
                        let n = recvmsg(fd, &header, 0)
                        guard n > 0 else { return nil }
                        // cmsghdr: len (8 bytes), level, type (4 each), then the ucred.
                        let level = ancillary.load(fromByteOffset: 8, as: Int32.self)
                        let type = ancillary.load(fromByteOffset: 12, as: Int32.self)
                        let pid =
                            level == SOL_SOCKET && type == 2 /* SCM_CREDENTIALS */
                            ? ancillary.load(fromByteOffset: 16, as: Int32.self) : 0
                        return (String(decoding: data[..<n], as: UTF8.self), pid)
                    }
                }
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

    /// `upright notify-relay`, the main process of the compositor units: what `upright play` (its
    /// descendant) says reaches the service manager as the relay's own; a stop signal reaches
    /// play, and the relay ends with its status, leaving nothing behind.
    @Test func theRelaySendsOnWhatPlaySaysAsItsOwnAndPassesTheStopOn() async throws {
        let notify = try NotifySocket()
        let runtime = NSTemporaryDirectory() + "upright-relay-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["RUNTIME_DIRECTORY"] = runtime
        environment["WATCHDOG_USEC"] = "400000"
        environment["WATCHDOG_PID"] = nil
        for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK"] { environment[name] = nil }
        // The relay starts a shell, which starts play: play is not the relay's own child, and gets
        // the stop from the relay's process group (the shell, as the session script does, waits
        // for it and ends with its status).
        let play = try SignalTests.Play(
            ["--uri", "none", "--vo", "null", "--no-control"], environment: environment,
            launcher: [uprightBinary.path, "notify-relay", "/bin/sh", "-c", "trap : TERM; \"$0\" \"$@\"; exit $?"])
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        let received = await notify.collectWithSenders(for: 2.5)
        let messages = received.map(\.message), senders = Set(received.map(\.sender))
        let relay = play.process.processIdentifier
        #expect(messages.contains { $0.split(separator: "\n").contains("READY=1") }, "\(messages) \(play.stderr)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3, "\(messages)")
        #expect(senders == [relay], "senders \(senders), relay \(relay)")
        let inside = try FileManager.default.contentsOfDirectory(atPath: runtime)
        #expect(inside.count == 1 && inside[0].hasPrefix("upright-notify-"), "\(inside)")
        play.process.send(SIGTERM)
        let process = play.process
        await Blocking.run { process.waitUntilExit() }
        #expect(process.terminationStatus == 0, "\(play.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    /// The watchdog's SIGABRT to the relay ends the process that stopped sending keep-alives
    /// (here `upright play`, in a session of its own as a compositor starts it) by SIGABRT, and
    /// the rest of the session by SIGTERM.
    @Test func theWatchdogsSignalEndsTheNotifierAndStopsTheRest() async throws {
        let notify = try NotifySocket()
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["WATCHDOG_USEC"] = "400000"
        environment["WATCHDOG_PID"] = nil
        environment["SWIFT_BACKTRACE"] = "enable=no"
        for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK"] { environment[name] = nil }
        let directory = NSTemporaryDirectory() + "upright-relay-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // setsid: play leaves the relay's process group; a subshell that ignores the stop writes its
        // status where the test reads it; the shell itself waits for a sleep, so that only the
        // stop ends it (not the subshell's end, which may come first on a loaded machine).
        let play = try SignalTests.Play(
            ["--uri", "none", "--vo", "null", "--no-control"], environment: environment,
            launcher: [
                uprightBinary.path, "notify-relay", "/bin/sh", "-c",
                "(trap '' TERM; setsid -w \"$0\" \"$@\"; echo $? > \(directory)/play-status) & sleep 60 & wait $!",
            ])
        defer { if play.process.isRunning { kill(-play.process.processIdentifier, SIGKILL) } }
        let received = await notify.collectWithSenders(for: 2)
        #expect(received.contains { $0.message == "WATCHDOG=1" }, "\(play.stderr)")
        play.process.send(SIGABRT)
        let process = play.process
        await Blocking.run { process.waitUntilExit() }
        #expect(process.terminationStatus == SIGTERM, "the shell ended by SIGTERM: \(play.stderr)")
        let ended = await Blocking.run { () -> String? in
            for _ in 0..<100 {
                if let text = try? String(contentsOfFile: directory + "/play-status", encoding: .utf8), !text.isEmpty {
                    return text.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                usleep(100_000)
            }
            return nil
        }
        #expect(ended == "\(128 + SIGABRT)", "upright play ended by SIGABRT")
    }

    @Test func theRelayEndsWithTheCommandsStatusAndSaysWhyOneCannotStart() async throws {
        let notify = try NotifySocket()
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        let killed = try await upright(["notify-relay", "/bin/sh", "-c", "kill -TERM $$"], environment: environment)
        #expect(killed.status == SIGTERM, "ended by SIGTERM as its command was: \(killed.stderr)")
        let absent = try await upright(["notify-relay", "no-such-program-here"], environment: environment)
        #expect(absent.status != 0)
        #expect(
            absent.stderr.contains("cannot start no-such-program-here: No such file or directory"), "\(absent.stderr)")
        environment["NOTIFY_SOCKET"] = nil
        let plain = try await upright(["notify-relay", "/bin/sh", "-c", "exit 3"], environment: environment)
        #expect(plain.status == 3)
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
