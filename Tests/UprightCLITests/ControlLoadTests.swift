import Blocking
import Foundation
import Glibc
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

    static func start(fileLimit: Int) throws -> (Play, socket: String, directory: String) {
        let directory = NSTemporaryDirectory() + "upright-load-\(UUID().uuidString.prefix(8))"
        let socket = directory + "/control.sock"
        let play = try Play(["--uri", "none", "--vo", "null", "--control", socket], fileLimit: fileLimit)
        return (play, socket, directory)
    }

    @Test func itStillAnswersAfter1100IdleClientsUnderTheServiceLimit() async throws {
        let (play, socket, directory) = try Self.start(fileLimit: 1024)
        defer {
            kill(play.process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(await play.waitFor("control socket: "), "\(play.stderr)")
        try await Self.withIdleClients(1100, to: socket) {
            let run = try await upright(["ctl", "--socket", socket, "status"])
            #expect(run.status == 0, "\(run.stdout) \(run.stderr) \(play.stderr)")
            #expect(run.stdout.contains(#""ok": true"#))
            // The idle ones beyond the limit were closed to make room: no descriptor per client.
            #expect(Self.descriptors(play.process.processIdentifier) < 200)
        }
        #expect(play.process.isRunning)
    }

    @Test func runningOutOfDescriptorsClosesIdleClientsAndKeepsListening() async throws {
        // Fewer descriptors than the connection limit: accept meets EMFILE.
        let (play, socket, directory) = try Self.start(fileLimit: 48)
        defer {
            kill(play.process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(await play.waitFor("control socket: "), "\(play.stderr)")
        try await Self.withIdleClients(200, to: socket) {
            let run = try await upright(["ctl", "--socket", socket, "status"])
            #expect(run.status == 0, "\(run.stdout) \(run.stderr) \(play.stderr)")
            #expect(play.stderr.contains("cannot accept a connection"), "\(play.stderr)")
        }
        let again = try await upright(["ctl", "--socket", socket, "status"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(play.process.isRunning)
    }
}
