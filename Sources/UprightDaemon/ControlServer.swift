import Foundation
import Glibc
import Synchronization

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
    private let state = Mutex(ServerState())

    private struct ServerState {
        var started = false
        var stopped = false
    }

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
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = try unixAddress(path)
        let old = umask(0o177)  // the socket is born 0600
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard rc == 0, listen(fd, 8) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw ControlError("cannot listen on \(path): \(why)")
        }
        chmod(path, 0o600)
        listener = fd
    }

    /// Serves until ``stop()``; blocking accept on a thread of its own, which alone closes the
    /// listening socket when it ends (closing it under a blocked or starting `accept` could let a
    /// new socket reuse the number and be served by the old thread).
    public func start() {
        let listener = listener
        state.withLock { $0.started = true }
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED, !state.withLock({ $0.stopped }) { continue }
                    break  // shut down by stop()
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                Thread.detachNewThread { [self] in serve(client) }
            }
            close(listener)
        }
    }

    /// Stops listening but leaves the socket file, as a run that died does (for tests).
    public func stopListeningOnly() {
        let started = state.withLock {
            $0.stopped = true
            return $0.started
        }
        shutdown(listener, Int32(SHUT_RDWR))
        if !started { close(listener) }
    }

    /// Stops listening and removes the socket file.
    public func stop() {
        stopListeningOnly()
        unlink(path)
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return }
        guard credentials.uid == geteuid() || credentials.uid == 0 else {
            writeLine(fd, #"{"ok": false, "error": "permission denied: the control socket serves its own user only"}"#)
            return
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                writeLine(fd, reply(to: line))
            }
            if pending.count > 65_536 {
                writeLine(fd, #"{"ok": false, "error": "request line too long"}"#)
                return
            }
        }
    }

    /// Waits on this connection's own thread for the asynchronous handler.
    private func reply(to line: String) -> String {
        let handler: @Sendable (String) async -> String
        switch self.handler {
        case .sync(let answer): return answer(line)
        case .async(let h): handler = h
        }
        let box = ReplyBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await handler(line)
            done.signal()
        }
        done.wait()
        return box.value
    }

    private func writeLine(_ fd: Int32, _ text: String) {
        let bytes = Array((text + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            sent += n
        }
    }
}

/// `struct ucred` (pid, uid, gid), which Glibc's module map hides behind _GNU_SOURCE.
private struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

// @unchecked Sendable: written once by the handler task before the semaphore is signalled, read
// after the wait; the semaphore orders the two.
private final class ReplyBox: @unchecked Sendable {
    var value = ""
}

func unixAddress(_ path: String) throws(ControlError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw ControlError("the socket path is too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return address
}

/// A client of the control socket: one request line, one reply line.
public enum ControlClient {
    static func connect(_ path: String) throws(ControlError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a socket") }
        var address = try unixAddress(path)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw ControlError("cannot connect to \(path): \(why) (is `upright play` running?)")
        }
        return fd
    }

    /// The same from async code: the blocking exchange runs on a dispatch thread, never on the
    /// cooperative pool (whose threads the daemon's own handler may need to answer).
    public static func send(_ request: String, to path: String, timeout seconds: Int = 10) async throws(ControlError)
        -> String
    {
        let result: Result<String, ControlError> = await withCheckedContinuation { c in
            DispatchQueue.global().async {
                do throws(ControlError) {
                    c.resume(returning: .success(try send(request, to: path, timeout: seconds) as String))
                } catch {
                    c.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Sends `request` (one JSON line) and returns the reply line.
    public static func send(_ request: String, to path: String, timeout seconds: Int = 10) throws(ControlError) -> String {
        let fd = try connect(path)
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array((request + "\n").utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw ControlError("cannot write to \(path)")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(10) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw ControlError("no reply from \(path)") }
            reply += buffer[0..<n]
        }
        return String(decoding: reply[..<reply.firstIndex(of: 10)!], as: UTF8.self)
    }
}
