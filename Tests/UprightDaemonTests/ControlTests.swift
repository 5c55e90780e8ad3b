import Blocking
import Config
import Control
import Foundation
import Logging
import MPV
import OrientationCore
import Session
import Synchronization
import TestSupport
import Testing
import UnixSocket
import Wire

@testable import UprightDaemon

/// A session on the real libmpv (vo=null), no sensor and no display, for control and reload.
func quietSession(
    _ configuration: UprightConfiguration = UprightConfiguration(),
    log: @escaping @Sendable (RotationDecision) -> Void = { _ in }
) throws -> PlaySession {
    var c = configuration
    c.sensor.uri = "none"
    c.lock.evdev = .none
    return try PlaySession(
        configuration: c, extraMPV: [("vo", "null"), ("ao", "null")], environment: [:], log: log,
        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
}

/// Runs `body` while `session` plays on `clock` (the test moves it: the session's transitions,
/// probes and timers fall due when it does); stops it afterwards.
func whilePlaying(
    _ session: PlaySession, clock: TestClock = TestClock(), _ body: () async throws -> Void
) async throws {
    let (stop, continuation) = AsyncStream.makeStream(of: Void.self)
    let running = Task { try await session.run(until: stop, clock: clock) }
    // The session has started once its status shows the launch decision.
    for _ in 0..<500 {
        if await session.currentStatus()?.lastDecision != nil { break }
        try await Task.sleep(for: .milliseconds(10))
    }
    try await body()
    continuation.yield()
    try await running.value
}

/// A reply line, read back by the type that wrote it.
func reply(_ line: String) throws -> ControlReply {
    try #require(ControlReply(line: line), "not a reply: \(line)")
}

/// The status in a `status` request's reply.
func status(_ session: PlaySession) async throws -> SessionStatus {
    try #require(try reply(await session.control(#"{"command": "status"}"#)).status)
}

@Suite("Control requests", .serialized)
struct ControlTests {
    @Test func statusSaysEverythingTheIssueAsksFor() async throws {
        let session = try quietSession()
        try await whilePlaying(session) {
            // Read back by the type that wrote it: device, lock, interface, strategy, scenes, sensor
            // and display are there (else it would not decode), with the last decision and its reason.
            let answer = try reply(await session.control(#"{"command": "status"}"#))
            #expect(answer.ok)
            let status = try #require(answer.status)
            #expect(status.scenes == ["inline"])
            #expect(status.display.backend == "none")
            #expect(status.lastDecision?.reason != nil)
        }
    }

    @Test func commandsDecideAndSayWhat() async throws {
        let session = try quietSession()
        let clock = TestClock()
        try await whilePlaying(session, clock: clock) {
            var answer = try reply(await session.control(#"{"command": "fullscreen"}"#))
            var decision = try #require(answer.decision)
            #expect(decision.interface == .landscapeRight)
            #expect(decision.scene == "fullscreen")
            await clock.advance(by: .milliseconds(700))  // the transition ends
            answer = try reply(await session.control(#"{"command": "rotate-to", "argument": "landscape-left"}"#))
            decision = try #require(answer.decision)
            #expect(decision.interface == .landscapeLeft)
            await clock.advance(by: .milliseconds(800))  // a half turn takes 0.6 s; a command waits for its end
            answer = try reply(await session.control(#"{"command": "lock"}"#))
            #expect(answer.ok)
            #expect(try await status(session).locked)
        }
    }

    @Test(arguments: [
        ("not json", "a request is a JSON object"),
        (#"{"cmd": "status"}"#, "the request has no \"command\""),
        (#"{"command": "dance"}"#, "unknown command 'dance'"),
        (#"{"command": "rotate-to", "argument": "sideways"}"#, "got 'sideways'"),
        (#"{"command": "rotate-to"}"#, "rotate-to needs an \"argument\""),
        (#"{"command": "scene-push", "argument": "nope"}"#, "no scene named 'nope'"),
        (#"{"command": "scene-pop"}"#, "no pushed scene"),
        (
            #"{"command":"status","command":"lock"}"#,
            "the key \"command\" a second time (each key may appear once) at column 21"
        ),
        (
            #"{"command": "rotate-to", "argument": "portrait", "argument" : "landscape-left"}"#,
            "the key \"argument\" a second time"
        ),
        (#"{"command": "status",}"#, "not strict JSON: a comma before '}' at column 22"),
        (
            #"{"command": "lock"} // now"#,
            "not strict JSON: a comment (JSON has none) after the JSON value at column 21"
        ),
        (#"{"command": /* which */ "lock"}"#, "a comment (JSON has none) where a value belongs at column 13"),
    ])
    func badRequestsGetAnErrorAndChangeNothing(request: String, error: String) async throws {
        let session = try quietSession()
        try await whilePlaying(session) {
            let before = try await status(session)
            let answer = try reply(await session.control(request))
            #expect(!answer.ok)
            #expect(answer.error?.contains(error) == true, "\(answer)")
            let after = try await status(session)
            #expect(after.interface == before.interface)
            #expect(after.scenes == before.scenes)
        }
    }

    @Test func aReloadKeepsTheLockAndTheScenesAndARefusedOneChangesNothing() async throws {
        let session = try quietSession()
        let clock = TestClock()
        try await whilePlaying(session, clock: clock) {
            _ = await session.control(#"{"command": "lock"}"#)
            _ = await session.control(#"{"command": "fullscreen"}"#)
            await clock.advance(by: .milliseconds(700))
            var new = try UprightConfiguration.parse(
                """
                [scenes.fullscreen]
                supported = ["landscape-left"]
                preferred = "landscape-left"
                """)
            new.sensor.uri = "none"
            new.lock.evdev = .none
            let notes = await session.reload(new)
            #expect(notes.isEmpty, "\(notes)")
            var now = try await status(session)
            #expect(now.locked)
            #expect(now.scenes == ["inline", "fullscreen"])
            #expect(now.interface == .landscapeLeft)  // the new mask, presented at once

            var bad = new
            bad.policy.appSupported = [.portrait]  // the full-screen scene's landscape is no longer allowed
            let refused = await session.reload(bad)
            #expect(refused.first?.contains("refused") == true, "\(refused)")
            now = try await status(session)
            #expect(now.interface == .landscapeLeft)
        }
    }
}

@Suite("Control socket", .serialized)
struct ControlSocketTests {
    func temporarySocket() -> String {
        NSTemporaryDirectory() + "upright-ctl-\(UUID().uuidString.prefix(8))/control.sock"
    }

    @Test func repliesLineByLineOnAPrivateSocket() async throws {
        let path = temporarySocket()
        let server = try await ControlServer(path: path, answer: { line in "{\"echo\": \(line.count)}" })
        server.start()
        defer { server.stop() }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try await ControlClient.send("hello", to: path) == #"{"echo": 5}"#)
        // Another server on the same path: this one answers, so it is refused.
        await #expect(throws: ControlError.self) { try await ControlServer(path: path, answer: { _ in "" }) }
    }

    @Test func aSocketLeftByADeadRunIsReplaced() async throws {
        let path = temporarySocket()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // A run that died leaves its socket file behind, with nobody listening.
        close(try UnixSocket.listen(path))
        #expect(FileManager.default.fileExists(atPath: path))
        // Another test of this process that forks meanwhile holds the closed listener until its
        // exec (close-on-exec acts only then): for that moment the socket still accepts.
        var attempt: ControlServer?
        for _ in 0..<20 where attempt == nil {
            attempt = try? await ControlServer(path: path, answer: { _ in "second" })
            if attempt == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let second = try #require(attempt)
        second.start()
        defer { second.stop() }
        #expect(try await ControlClient.send("x", to: path) == "second")
    }

    /// NIO's async listener would trap ("Deinited NIOAsyncWriter without calling finish()") on a
    /// connection accepted but not yet handed out when the server stops. A burst of clients meets
    /// each of fifty servers stopping: the process lives, and every client that got in sees its
    /// connection closed (none waits out its 5 s timeout on a connection left open).
    @Test func aServerStoppedWhileClientsConnectTrapsNothingAndLeavesNothingOpen() async throws {
        let path = temporarySocket()
        var leftOpen = 0
        for round in 0..<50 {
            let server = try await ControlServer(path: path, answer: { _ in #"{"ok": true}"# })
            let clients = Task {
                await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<16 { group.addTask { await Self.connectionWasLeftOpen(path) } }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            try await Task.sleep(for: .milliseconds(round % 5))
            server.stop()
            leftOpen += await clients.value
        }
        #expect(leftOpen == 0)
    }

    /// Connects, asks, and reads until the server closes: true when the read timed out instead.
    static func connectionWasLeftOpen(_ path: String) async -> Bool {
        await Blocking.run { () -> Bool in
            guard let fd = try? UnixSocket.connect(path, timeout: 5) else { return false }
            defer { close(fd) }
            _ = UnixSocket.sendAll(fd, Array(#"{"command": "status"}\#n"#.utf8))
            while true {
                guard let chunk = UnixSocket.read(fd) else { return errno == EAGAIN || errno == EWOULDBLOCK }
                if chunk.isEmpty { return false }
            }
        }
    }

    @Test func theRuntimeDirectoryIsTheUnitsThenTheSessionsThenTheSystems() {
        #expect(
            uprightRuntimeDirectory(["RUNTIME_DIRECTORY": "/run/upright", "XDG_RUNTIME_DIR": "/run/user/7"])
                == "/run/upright")
        // Another unit's runtime directory (a parent's) is not Upright's.
        #expect(
            uprightRuntimeDirectory(["RUNTIME_DIRECTORY": "/run/greetd", "XDG_RUNTIME_DIR": "/run/user/7"])
                == "/run/user/7/upright")
        #expect(controlSocketCandidates(["UPRIGHT_CONTROL": "/x/c.sock"]) == ["/x/c.sock"])
        let candidates = controlSocketCandidates(["XDG_RUNTIME_DIR": "/run/user/7"])
        #expect(Array(candidates.prefix(2)) == ["/run/user/7/upright/control.sock", "/run/upright/control.sock"])
    }

    @Test func noSuchDaemonIsAClearError() async {
        await #expect {
            try await ControlClient.send("x", to: "/nonexistent/upright/control.sock")
        } throws: { e in
            (e as? ControlError)?.description.contains("is `upright play` running?") == true
        }
    }
}

@Suite("Control socket peers", .enabled(if: getuid() == 0, "needs root to act as another user"))
struct ControlPeerTests {
    /// Asks `path` for the status as the user `upright-test`, with `groups` as its supplementary
    /// groups (`--clear-groups` when empty); the reply line.
    static func askAsAnotherUser(_ path: String, groups: [Int] = []) throws -> String {
        let user = "upright-test"
        // The display tests may be creating the same user at this moment (useradd locks /etc/passwd).
        for _ in 0..<50 where getpwnam(user) == nil {
            let add = Process()
            add.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
            add.arguments = ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user]
            add.standardError = FileHandle.nullDevice
            try add.run()
            add.waitUntilExit()
            if getpwnam(user) == nil { usleep(100_000) }
        }
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let groupOption =
            groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        client.arguments = [
            "--reuid=\(user)", "--regid=\(user)", groupOption, "/usr/bin/python3", "-c",
            """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            try:
                s.sendall(b'{"command": "status"}\\n')
            except BrokenPipeError:
                pass  # refused at once: the refusal is already waiting to be read
            print(s.recv(4096).decode().strip())
            """, path,
        ]
        let out = Pipe(), err = Pipe()
        client.standardOutput = out
        client.standardError = err
        try client.run()
        let reply = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        return reply + said
    }

    @Test func anotherUserIsRefusedEvenWhenTheSocketIsOpenToAll() async throws {
        let directory = NSTemporaryDirectory() + "upright-peer-\(UUID().uuidString.prefix(8))"
        let path = directory + "/control.sock"
        let server = try await ControlServer(path: path, answer: { _ in #"{"ok": true}"# })
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        // Open the socket to everyone: only SO_PEERCRED stands between another user and the daemon.
        chmod(directory, 0o755)
        chmod(path, 0o666)
        let reply = try await Blocking.run { try Self.askAsAnotherUser(path, groups: [Int(getegid())]) }
        #expect(reply.contains("permission denied"), "\(reply)")
        // Its own user is served.
        #expect(try await ControlClient.send(#"{"command": "status"}"#, to: path) == #"{"ok": true}"#)
    }

    @Test func withGroupAccessAMemberOfTheGroupIsServedAndOthersAreNot() async throws {
        let directory = NSTemporaryDirectory() + "upright-peer-\(UUID().uuidString.prefix(8))"
        let path = directory + "/control.sock"
        let server = try await ControlServer(path: path, group: true, handler: { _ in #"{"ok": true}"# })
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o660)
        chmod(directory, 0o755)
        chmod(path, 0o666)
        let member = try await Blocking.run { try Self.askAsAnotherUser(path, groups: [Int(getegid())]) }
        #expect(member.contains(#"{"ok": true}"#), "\(member)")
        let stranger = try await Blocking.run { try Self.askAsAnotherUser(path) }
        #expect(
            stranger.contains("permission denied: the control socket serves its own user and group only"), "\(stranger)"
        )
    }
}

@Suite("Hotkeys in a session", .serialized)
struct SessionHotkeyTests {
    @Test func theRotateKeyTurnsToTheNextOrientationTheSceneAllows() async throws {
        var c = UprightConfiguration()
        c.player.hotkeys[.rotate] = ["r"]
        let session = try quietSession(c)
        let clock = TestClock()
        try await whilePlaying(session, clock: clock) {
            _ = await session.control(#"{"command": "fullscreen"}"#)
            await clock.advance(by: .milliseconds(500))
            try session.mpvHandle.command(["keypress", "r"])
            var interface = ""
            for _ in 0..<100 {
                interface = try await status(session).interface.name
                if interface == "landscape-left" { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            // From landscape-right, clockwise: upside down is not allowed in full screen, landscape-left is.
            #expect(interface == "landscape-left")
        }
    }
}

@Suite("Control replies say what happened", .serialized)
struct ControlReplyTests {
    @Test func aRefusedCommandIsNotOk() async throws {
        let session = try quietSession()
        let clock = TestClock()
        try await whilePlaying(session, clock: clock) {
            _ = await session.control(#"{"command": "fullscreen"}"#)
            await clock.advance(by: .milliseconds(400))
            let answer = try reply(
                await session.control(#"{"command": "rotate-to", "argument": "portrait-upside-down"}"#))
            #expect(!answer.ok)
            #expect(answer.error?.contains("does not allow portrait-upside-down") == true, "\(answer)")
            #expect(answer.decision?.reason == .unsupported)
        }
    }

    @Test func aCommandBehindATransitionSaysItIsQueued() async throws {
        var c = UprightConfiguration()
        c.policy.transitionDuration = 5  // the second command surely comes during the turn
        let session = try quietSession(c)
        try await whilePlaying(session) {
            let first = try reply(await session.control(#"{"command": "fullscreen"}"#))
            #expect(first.decision?.decision == .rotate)
            let second = try reply(await session.control(#"{"command": "fullscreen"}"#))
            #expect(second.ok && second.queued == true, "\(second)")
            #expect(second.decision == nil)
        }
    }

    @Test func nextAndPreviousSayWhatPlaysNow() async throws {
        var c = UprightConfiguration()
        let a = "av://lavfi:testsrc=size=64x64:rate=5", b = "av://lavfi:smptebars=size=64x64:rate=5"
        c.player.playlist = [a, b]
        let session = try quietSession(c)
        try await whilePlaying(session) {
            var answer = try reply(await session.control(#"{"command": "next"}"#))
            #expect(answer.ok && answer.playing == b, "\(answer)")
            answer = try reply(await session.control(#"{"command": "prev"}"#))
            #expect(answer.playing == a, "\(answer)")
        }
    }

    @Test func unlockAndAcceptSuggestionWorkFromTheirKeys() async throws {
        var c = UprightConfiguration()
        c.player.hotkeys[.unlock] = ["u"]
        c.player.hotkeys[.acceptSuggestion] = ["a"]
        let lines = Lines()
        let session = try quietSession(c, log: { lines.append($0.jsonLine(time: $0.millisecondsText)) })
        try await whilePlaying(session) {
            _ = await session.control(#"{"command": "lock"}"#)
            #expect(await session.currentStatus()?.locked == true)
            try session.mpvHandle.command(["keypress", "a"])
            try session.mpvHandle.command(["keypress", "u"])
            var unlocked = false
            for _ in 0..<200 where !unlocked {
                unlocked = await session.currentStatus()?.locked == false
                if !unlocked { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(unlocked, "the u key unlocks")
            // No suggestion was offered (no sensor): the a key reaches the session and is refused.
            #expect(
                lines.all.contains { $0.contains(#""reason": "rejected", "cause": "accept-suggestion""#) },
                "\(lines.all)")
        }
    }
}

/// Lines written from any thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite("A session that has ended")
struct EndedSessionTests {
    @Test func refusesRequestsAtOnce() async throws {
        let session = try quietSession()
        try await whilePlaying(session) {}
        let answer = try reply(await session.control(#"{"command": "fullscreen"}"#))
        #expect(!answer.ok)
        #expect(answer.error == "the session has ended")
    }
}

@Suite("A reload says what waits for the next start")
struct RestartNotesTests {
    /// `[screen]`'s idle time and toast time, like its plan, apply at the next start: said so.
    @Test func screenSettingsWaitForTheNextStart() {
        let old = UprightConfiguration()
        var idle = old
        idle.screenIdleOff = 60
        var toast = old
        toast.screenToastSeconds = 3
        var playlist = old
        playlist.player.playlist = ["av://lavfi:testsrc"]
        let note = "[screen] settings (the power plan, idle_off, toast_seconds) take effect at the next start"
        #expect(old.restartNotes(for: idle) == [note])
        #expect(old.restartNotes(for: toast) == [note])
        #expect(old.restartNotes(for: playlist).isEmpty)
    }
}
