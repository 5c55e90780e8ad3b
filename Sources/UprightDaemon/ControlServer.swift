import Blocking
import Foundation
import Glibc
import Session
import Synchronization
import UnixSocket

/// Where Upright keeps its runtime files: `$XDG_RUNTIME_DIR/upright`, or `/run/upright` for root
/// without one (a system service), or `/tmp/upright-UID`.
public func uprightRuntimeDirectory(_ environment: [String: String]? = nil) -> String {
    let environment = environment ?? ProcessInfo.processInfo.environment
    if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return "\(d)/upright" }
    return getuid() == 0 ? "/run/upright" : "/tmp/upright-\(getuid())"
}

/// The control socket's path.
public func controlSocketPath(_ environment: [String: String]? = nil) -> String {
    let environment = environment ?? ProcessInfo.processInfo.environment
    return environment["UPRIGHT_CONTROL"] ?? "\(uprightRuntimeDirectory(environment))/control.sock"
}

/// A failure of the control socket, worded for the user.
public struct ControlError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The control socket: a Unix stream socket (mode 0600, in a 0700 directory) taking JSON lines.
/// Only peers of the same user (or root) are served: `SO_PEERCRED` is checked on every
/// connection. Each connection has its own thread; the handler is asynchronous and its reply is
/// written back as one line. A bad request gets an error reply; nothing a peer sends stops it.
public final class ControlServer: Sendable {
    public let path: String
    private let listener: Int32
    private let handler: Handler
    /// Whether the accept thread runs (and so owns the closing of `listener`).
    private let started = Mutex(false)

    private enum Handler: Sendable {
        case async(@Sendable (String) async -> String)
        case sync(@Sendable (String) -> String)
    }

    /// Binds `path`; throws when another Upright answers there or the socket cannot be made.
    public convenience init(path: String, handler: @escaping @Sendable (String) async -> String) throws(ControlError) {
        try self.init(path: path, handler: .async(handler))
    }

    /// The same with a handler that answers at once, on the connection's own thread.
    public convenience init(path: String, answer: @escaping @Sendable (String) -> String) throws(ControlError) {
        try self.init(path: path, handler: .sync(answer))
    }

    private init(path: String, handler: Handler) throws(ControlError) {
        self.path = path
        self.handler = handler
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ControlError("cannot create \(directory): \(error.localizedDescription)")
        }
        if FileManager.default.fileExists(atPath: path) {
            if let fd = try? ControlClient.connect(path) {
                close(fd)
                throw ControlError("another upright is running: its control socket \(path) answers")
            }
            unlink(path)  // left by a run that died
        }
        do throws(UnixSocketError) {
            listener = try UnixSocket.listen(path, mode: 0o600)
        } catch {
            throw ControlError("\(error)")
        }
    }

    /// Serves until ``stop()``; blocking accept on a thread of its own, which alone closes the
    /// listening socket when it ends (closing it under a blocked or starting `accept` could let a
    /// new socket reuse the number and be served by the old thread). A connection to an
    /// asynchronous handler is a task (its reads and writes through ``Blocking``); one to a handler
    /// that answers at once is served on a thread of its own.
    public func start() {
        let listener = listener
        started.withLock { $0 = true }
        Blocking.thread(named: "upright-control") { [self] in
            // Until stop() shuts the socket down.
            while let client = UnixSocket.accept(listener) {
                switch handler {
                case .async(let answer): Task { await serve(client, answer) }
                case .sync(let answer): Blocking.thread(named: "upright-control-peer") { self.serve(client, answer) }
                }
            }
            close(listener)
        }
    }

    /// Stops listening but leaves the socket file, as a run that died does (for tests).
    public func stopListeningOnly() {
        shutdown(listener, Int32(SHUT_RDWR))
        if !started.withLock({ $0 }) { close(listener) }
    }

    /// Stops listening and removes the socket file.
    public func stop() {
        stopListeningOnly()
        unlink(path)
    }

    /// One connection to an asynchronous handler: request lines in, one reply line each.
    private func serve(_ fd: Int32, _ answer: @Sendable (String) async -> String) async {
        defer { close(fd) }
        guard await Blocking.run({ self.admit(fd) }) else { return }
        var lines = LineBuffer()
        while let chunk = await Blocking.run({ UnixSocket.read(fd) }), !chunk.isEmpty {
            for line in lines.add(chunk) {
                let reply = await answer(line)
                _ = await Blocking.run { Self.writeLine(fd, reply) }
            }
            if lines.overflowed {
                _ = await Blocking.run { Self.writeLine(fd, LineBuffer.tooLong) }
                break
            }
        }
    }

    /// The same for a handler that answers at once, on the connection's own thread.
    private func serve(_ fd: Int32, _ answer: (String) -> String) {
        defer { close(fd) }
        guard admit(fd) else { return }
        var lines = LineBuffer()
        while let chunk = UnixSocket.read(fd), !chunk.isEmpty {
            for line in lines.add(chunk) { Self.writeLine(fd, answer(line)) }
            if lines.overflowed {
                Self.writeLine(fd, LineBuffer.tooLong)
                break
            }
        }
    }

    /// Sets the connection's timeouts and checks its peer: its own user (or root) only.
    private func admit(_ fd: Int32) -> Bool {
        UnixSocket.setTimeout(fd, seconds: 30)
        guard let uid = UnixSocket.peerUID(fd) else { return false }
        guard uid == geteuid() || uid == 0 else {
            Self.writeLine(
                fd, ControlReply.refused("permission denied: the control socket serves its own user only").line)
            return false
        }
        return true
    }

    private static func writeLine(_ fd: Int32, _ text: String) {
        _ = UnixSocket.sendAll(fd, Array((text + "\n").utf8))
    }
}

/// Splits what a connection sends into request lines; a line longer than ``limit`` ends the
/// connection with the ``tooLong`` reply.
struct LineBuffer {
    private var pending: [UInt8] = []
    private(set) var overflowed = false
    static let limit = 65_536
    static let tooLong = ControlReply.refused("request line too long").line

    /// The complete non-blank lines `chunk` ends, in order.
    mutating func add(_ chunk: [UInt8]) -> [String] {
        pending += chunk
        var lines: [String] = []
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(line) }
        }
        overflowed = pending.count > Self.limit
        return lines
    }
}

/// A client of the control socket: one request line, one reply line.
public enum ControlClient {
    static func connect(_ path: String, timeout: Int = 10) throws(ControlError) -> Int32 {
        do throws(UnixSocketError) {
            return try UnixSocket.connect(path, timeout: timeout)
        } catch {
            throw ControlError("\(error) (is `upright play` running?)")
        }
    }

    /// The same from async code: the blocking exchange runs on a dispatch thread, never on the
    /// cooperative pool (whose threads the daemon's own handler may need to answer).
    public static func send(_ request: String, to path: String, timeout seconds: Int = 10) async throws(ControlError)
        -> String
    {
        try await Blocking.run { () throws(ControlError) in try send(request, to: path, timeout: seconds) as String }
    }

    /// Sends `request` (one JSON line) and returns the reply line.
    public static func send(_ request: String, to path: String, timeout seconds: Int = 10) throws(ControlError)
        -> String
    {
        let fd = try connect(path, timeout: seconds)
        defer { close(fd) }
        guard UnixSocket.sendAll(fd, Array((request + "\n").utf8)) else {
            throw ControlError("cannot write to \(path): \(UnixSocket.lastError)")
        }
        var reply: [UInt8] = []
        while !reply.contains(10) {
            guard let chunk = UnixSocket.read(fd), !chunk.isEmpty else { throw ControlError("no reply from \(path)") }
            reply += chunk
        }
        return String(decoding: reply[..<reply.firstIndex(of: 10)!], as: UTF8.self)
    }
}
