import Blocking
import Foundation
import Glibc
public import Logging
import NIOCore
import NIOPosix
import Session
import Synchronization
import UnixSocket
import Wire

/// The system's runtime directory for Upright: the units' `RuntimeDirectory=upright`, and the
/// package's tmpfiles.d entry for the kiosk user's sessions (greetd), owned by `upright`.
public let systemRuntimeDirectory = "/run/upright"

/// Where Upright keeps its runtime files (the control socket, the display's restore record):
/// the runtime directory systemd made for the unit (`RuntimeDirectory=upright`, passed as
/// `$RUNTIME_DIRECTORY`), else `/run/upright` when it is this user's own (the kiosk user's, made
/// at boot by the package's tmpfiles.d entry: a greetd session finds it there), else
/// `$XDG_RUNTIME_DIR/upright`, else `/run/upright` for root, else `/tmp/upright-UID`.
public func uprightRuntimeDirectory(_ environment: [String: String]? = nil, system: String = systemRuntimeDirectory)
    -> String
{
    let environment = environment ?? ProcessInfo.processInfo.environment
    if let unit = systemdRuntimeDirectory(environment) { return unit }
    var info = stat()
    if getuid() != 0, stat(system, &info) == 0, info.st_uid == getuid(), access(system, W_OK) == 0 { return system }
    if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return "\(d)/upright" }
    return getuid() == 0 ? system : "/tmp/upright-\(getuid())"
}

/// Whether the control socket at `path` serves the process's group too (mode 0660): in the
/// unit's runtime directory or the system's, where `upright ctl` of a member of the group
/// `upright` looks (a user's own runtime directory is private to the user).
public func controlSocketIsShared(
    _ path: String, _ environment: [String: String]? = nil, system: String = systemRuntimeDirectory
) -> Bool {
    let environment = environment ?? ProcessInfo.processInfo.environment
    let directory = (path as NSString).deletingLastPathComponent
    return directory == systemdRuntimeDirectory(environment) || directory == system
}

/// systemd's `$RUNTIME_DIRECTORY` when it is Upright's own (`.../upright`); a parent's is not.
func systemdRuntimeDirectory(_ environment: [String: String]) -> String? {
    environment["RUNTIME_DIRECTORY"]?.split(separator: ":").map(String.init).first { $0.hasSuffix("/upright") }
}

/// The control socket's path for `upright play`: `$UPRIGHT_CONTROL`, else `control.sock` in the
/// runtime directory.
public func controlSocketPath(_ environment: [String: String]? = nil) -> String {
    let environment = environment ?? ProcessInfo.processInfo.environment
    return environment["UPRIGHT_CONTROL"] ?? "\(uprightRuntimeDirectory(environment))/control.sock"
}

/// Where `upright ctl` looks for a running player, in order: `$UPRIGHT_CONTROL`, this user's
/// runtime directory, the system service's `/run/upright`, then (for root) every user's
/// `/run/user/UID/upright`; the first socket that exists. With none, the first candidate.
public func controlSocketCandidates(_ environment: [String: String]? = nil) -> [String] {
    let environment = environment ?? ProcessInfo.processInfo.environment
    if let explicit = environment["UPRIGHT_CONTROL"] { return [explicit] }
    var candidates = [controlSocketPath(environment), systemRuntimeDirectory + "/control.sock"]
    if getuid() == 0 {
        let users = (try? FileManager.default.contentsOfDirectory(atPath: "/run/user")) ?? []
        candidates += users.sorted().map { "/run/user/\($0)/upright/control.sock" }
    }
    var seen: Set<String> = []
    return candidates.filter { seen.insert($0).inserted }
}

/// The running player's control socket for `upright ctl`: the first candidate that exists.
public func findControlSocket(_ environment: [String: String]? = nil) -> String {
    let candidates = controlSocketCandidates(environment)
    return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
}

/// A failure of the control socket, worded for the user.
public struct ControlError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The control socket: a Unix stream socket (mode 0600, in a 0700 directory) taking JSON lines.
/// Only peers of the same user (or root) are served: `SO_PEERCRED` is checked on every
/// connection. Served by SwiftNIO on the process's one event-loop group (NIO's shared one, which
/// the metrics server uses too), whatever the number of clients; a
/// connection's requests are answered in order, each by the asynchronous handler in a task. A
/// connection idle for 30 s is closed, and beyond ``connectionLimit`` open connections the one
/// idle longest makes room for the new one. When `accept` fails (EMFILE, ENFILE: the descriptor
/// limit), the server logs it and tries again a second later; the listener stays open for as long
/// as the server runs. A bad request gets an error reply; nothing a peer sends stops it.
public final class ControlServer: Sendable {
    public let path: String
    /// Open connections at the most: a monitoring system that never closes its own cannot make
    /// the socket deaf.
    public static let connectionLimit = 64
    private let listener: any Channel
    private let connections: Connections

    /// Binds `path`; throws when another Upright answers there or the socket cannot be made.
    /// With `group`, the socket is open to the process's group too (mode 0660; members are
    /// checked by their credentials): for the runtime directory a systemd unit makes.
    public init(
        path: String, group: Bool = false, logger: Logger = Logger(label: "upright"),
        handler: @escaping @Sendable (String) async -> String
    ) async throws(ControlError) {
        self.path = path
        try Self.prepare(path)
        let connections = Connections()
        self.connections = connections
        // The socket file is made with the process's umask (0755 under 0022: no one else may connect,
        // since connecting needs write permission), then set to 0600 (0660). The umask is not
        // changed around the bind: it is the whole process's, and a helper program started by
        // another task meanwhile would keep the narrow one for good (a browser started so in the
        // tests could not enter its own profile and exited).
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            AcceptFailure(logger: logger, connections: connections))
                    }
                }
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            IdleStateHandler(readTimeout: .seconds(30)),
                            RequestHandler(handler: handler, connections: connections, group: group),
                        ])
                    }
                }
                .bind(unixDomainSocketPath: path).get()
        } catch {
            throw ControlError("cannot listen on \(path): \(error)")
        }
        chmod(path, group ? 0o660 : 0o600)
    }

    /// The same with a handler that answers at once.
    public convenience init(path: String, answer: @escaping @Sendable (String) -> String) async throws(ControlError) {
        try await self.init(path: path, logger: Logger(label: "upright"), handler: { line in answer(line) })
    }

    /// Makes the private directory; refuses a path where another Upright answers and removes a
    /// socket file left by a run that died.
    private static func prepare(_ path: String) throws(ControlError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ControlError("cannot create \(directory): \(error.localizedDescription)")
        }
        guard FileManager.default.fileExists(atPath: path) else { return }
        // A listener that accepts is a live Upright: a busy one may take a while to reply, and its
        // socket must never be taken from it.
        if (try? UnixSocket.probe(path)) != nil {
            throw ControlError("another upright is running: its control socket \(path) answers")
        }
        unlink(path)
    }

    /// Serving starts with the server; kept for the services' shape.
    public func start() {}

    /// Stops listening, closes the open connections and removes the socket file.
    public func stop() {
        listener.close(promise: nil)
        connections.closeAll()
        unlink(path)
    }

    /// Open connections now, for status and tests.
    public var openConnections: Int { connections.count }
}

/// One connection: checks the peer, splits lines, answers them one after the other (each by the
/// handler in a task) and writes each reply back as one line. Lives on the connection's event loop.
private final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let handler: @Sendable (String) async -> String
    let connections: Connections
    /// Members of the process's group are served too.
    let group: Bool
    private var lines = LineBuffer()
    private var pending: [String] = []
    private var admitted = false
    private var busy = false
    private var context: ChannelHandlerContext?

    init(handler: @escaping @Sendable (String) async -> String, connections: Connections, group: Bool) {
        (self.handler, self.connections, self.group) = (handler, connections, group)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelActive(context: ChannelHandlerContext) {
        connections.add(context.channel)
        context.fireChannelActive()
        guard let options = context.channel as? any SocketOptionProvider else { return refuse() }
        let peer: EventLoopFuture<PeerCredentials> = options.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        peer.assumeIsolated().whenComplete { result in
            guard case .success(let peer) = result, self.admits(peer) else { return self.refuse() }
            self.admitted = true
            self.next()
        }
    }

    /// This user and root, and with `group` the members of this process's group.
    private func admits(_ peer: PeerCredentials) -> Bool {
        if peer.uid == geteuid() || peer.uid == 0 { return true }
        guard group else { return false }
        if peer.gid == getegid() { return true }
        // Supplementary groups: the peer's own list (`Groups:` in /proc/PID/status).
        guard let status = try? String(contentsOfFile: "/proc/\(peer.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") })
        else { return false }
        return line.split(whereSeparator: \.isWhitespace).dropFirst().contains { UInt32($0) == getegid() }
    }

    /// Only this user (or root, or the group) is served (`SO_PEERCRED`).
    private func refuse() {
        let who = group ? "its own user and group" : "its own user"
        write(ControlReply.refused("permission denied: the control socket serves \(who) only").line)
        context?.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let chunk = unwrapInboundIn(data)
        pending += lines.add(Array(chunk.readableBytesView))
        if lines.overflowed {
            pending = []
            write(LineBuffer.tooLong)
            context.close(promise: nil)
            return
        }
        next()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent, !busy { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers the next pending line, unless one is being answered.
    private func next() {
        guard admitted, !busy, !pending.isEmpty, let context else { return }
        busy = true
        connections.use(context.channel, busy: true)
        let line = pending.removeFirst()
        let (handler, loop) = (handler, context.eventLoop)
        let this = NIOLoopBound(self, eventLoop: loop)
        Task {
            let reply = await handler(line)
            loop.execute {
                let handler = this.value
                handler.busy = false
                if let channel = handler.context?.channel { handler.connections.use(channel, busy: false) }
                handler.write(reply)
                handler.next()
            }
        }
    }

    private func write(_ line: String) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: line + "\n")), promise: nil)
    }

}

/// `struct ucred` (pid, uid, gid), which Glibc's module map hides behind _GNU_SOURCE.
private struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The open connections, with which is busy and when each was last used: beyond the limit, the
/// one idle longest is closed.
private final class Connections: Sendable {
    private struct Entry {
        var channel: any Channel
        var busy = false
        var used = ContinuousClock.now
    }

    private let open = Mutex<[ObjectIdentifier: Entry]>([:])

    var count: Int { open.withLock { $0.count } }

    /// Registers a new connection, closing the one idle longest when the limit is passed.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let evicted: (any Channel)? = open.withLock { open in
            open[id] = Entry(channel: channel)
            guard open.count > ControlServer.connectionLimit else { return nil }
            let idle = open.filter { !$0.value.busy && $0.key != id }.min { $0.value.used < $1.value.used }
            return idle.flatMap { open.removeValue(forKey: $0.key)?.channel }
        }
        evicted?.close(promise: nil)
    }

    /// Closes the older half of the idle connections (one at least); returns how many.
    func closeOlderIdleHalf() -> Int {
        let closing = open.withLock { open -> [any Channel] in
            let idle = open.filter { !$0.value.busy }.sorted { $0.value.used < $1.value.used }
            let older = idle.prefix(max(1, idle.count / 2))
            for (id, _) in older { open[id] = nil }
            return older.map(\.value.channel)
        }
        for channel in closing { channel.close(promise: nil) }
        return closing.count
    }

    func use(_ channel: any Channel, busy: Bool) {
        open.withLock { open in
            open[ObjectIdentifier(channel)]?.busy = busy
            open[ObjectIdentifier(channel)]?.used = .now
        }
    }

    func remove(_ channel: any Channel) { _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

    func closeAll() {
        for entry in open.withLock({ $0.values }) { entry.channel.close(promise: nil) }
    }
}

/// A failing `accept` (EMFILE, ENFILE): logged (at most once a minute), and the older half of the
/// idle connections is closed to give descriptors back; NIO's backoff then tries again a second
/// later and keeps the listener open.
private final class AcceptFailure: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    let logger: Logger
    let connections: Connections
    private var lastLogged: NIODeadline?

    init(logger: Logger, connections: Connections) { (self.logger, self.connections) = (logger, connections) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let closed = connections.closeOlderIdleHalf()
        let now = NIODeadline.now()
        if lastLogged.map({ now - $0 > .seconds(60) }) ?? true {
            lastLogged = now
            logger.error(
                "control socket: cannot accept a connection (\(error)); closed \(closed) idle connections, trying again in 1 s"
            )
        }
        context.fireErrorCaught(error)
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
