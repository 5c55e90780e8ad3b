import Blocking
import Foundation
import Glibc
import TestSupport
import Testing
import UnixSocket

/// The control socket of a real `upright play` under the descriptor limits of a system service.
@Suite("Control socket under load", .serialized)
struct ControlLoadTests {
    typealias Play = SignalTests.Play

    /// Opens `count` connections to `path` and keeps them idle; closes them at the end of `body`.
    static func withIdleClients<R>(_ count: Int, to path: String, _ body: () async throws -> R) async throws -> R {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, rlim_t(count + 256)))
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let clients = try await Blocking.run { () throws -> [Int32] in
            try (0..<count).map { _ in try UnixSocket.connect(path, timeout: 5) }
        }
        defer { clients.forEach { close($0) } }
        return try await body()
    }

    /// What the process has open now.
    static func descriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Runs `body` beside an `upright play` limited to `fileLimit` descriptors, once its control
    /// socket listens; `body` gets the player, its socket, and the status of `ctl status` under
    /// `clients` idle connections.
    static func withPlay(
        fileLimit: Int, idleClients clients: Int, _ body: (Play, _ socket: String, _ status: Run) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "upright-load-\(UUID().uuidString.prefix(8))"
        let socket = directory + "/control.sock"
        let play = try Play(["--uri", "none", "--vo", "null", "--control", socket], fileLimit: fileLimit)
        defer {
            play.process.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(await play.waitFor("control socket: "), "\(play.stderr)")
        try await Self.withIdleClients(clients, to: socket) {
            let run = try await upright(["ctl", "--socket", socket, "status"])
            #expect(run.status == 0, "\(run.stdout) \(run.stderr) \(play.stderr)")
            try await body(play, socket, run)
        }
        #expect(play.process.isRunning)
    }

    @Test func itStillAnswersAfter1100IdleClientsUnderTheServiceLimit() async throws {
        try await Self.withPlay(fileLimit: 1024, idleClients: 1100) { play, _, status in
            #expect(status.stdout.contains(#""ok": true"#))
            // The idle ones beyond the limit were closed to make room: no descriptor per client.
            #expect(Self.descriptors(play.process.processIdentifier) < 200)
        }
    }

    @Test func runningOutOfDescriptorsClosesIdleClientsAndKeepsListening() async throws {
        // Fewer descriptors than the connection limit: accept meets EMFILE.
        try await Self.withPlay(fileLimit: 48, idleClients: 200) { play, socket, _ in
            #expect(play.stderr.contains("control socket: descriptors running low"), "\(play.stderr)")
            let again = try await upright(["ctl", "--socket", socket, "status"])
            #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        }
    }
}
