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
/// connection. Served by SwiftNIO's async channels on the process's one event-loop group (NIO's
/// shared one, which the page uses too), whatever the number of clients: each connection in a
/// task of its own, its requests answered in order, the next read only once a reply is written
/// (what a peer sends beyond a few reads waits in its socket: a connection's queue is bounded). A
/// connection idle for 30 s is closed, and beyond ``connectionLimit`` open connections the one
/// idle longest makes room for the new one. When descriptors run low (EMFILE would stop `accept`),
/// the older half of the idle connections is closed and the server logs it; the listener stays
/// open for as long as the server runs. A bad request gets an error reply; nothing a peer sends
/// stops it.
///
/// The listener hands out each accepted connection as a plain `Channel`, reads off, registered
/// with the open connections at once; its task wraps it in a `NIOAsyncChannel` and closes it.
/// NIO's own wrapping at accept would leave an accepted connection not yet handed out when the
/// server stops with a writer never finished, which NIO traps.
public final class ControlServer: Sendable {
    public let path: String
    /// Open connections at the most: a monitoring system that never closes its own cannot make
    /// the socket deaf.
    public static let connectionLimit = 64
    /// How long a connection may wait between requests.
    static let idleLimit: Duration = .seconds(30)
    /// Descriptors the process keeps free for everything else (folder scans, mpv, downloads):
    /// with fewer left, the older half of the idle connections is closed, so that `accept` never
    /// meets the limit for want of them (NIO would then wait a second before it accepts again,
    /// and a burst of idle clients ahead of a real one in the queue would take many seconds).
    /// Room for the connections accepted but not yet handed out (``acceptedAhead``) too.
    static let reserve = 32
    /// Connections NIO accepts ahead of the server's loop.
    static let acceptedAhead = 4
    typealias Listener = NIOAsyncChannel<any Channel, Never>
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let listener: Mutex<Listener?>
    private let connections: Connections
    private let serving = Mutex<Task<Void, Never>?>(nil)
    private let lastLow = Mutex<ContinuousClock.Instant?>(nil)
    let group: Bool
    let logger: Logger
    let handler: @Sendable (String) async -> String
    /// Who among the peers the socket refuses even though their user may connect, by pid: mpv's
    /// process (it runs as this user, parsing untrusted media); `nil`: not refused.
    let refusing: @Sendable (Int32) -> String?

    /// Binds `path` and serves it until ``stop()``; throws when another Upright answers there or
    /// the socket cannot be made. With `group`, the socket is open to the process's group too
    /// (mode 0660; members are checked by their credentials): for the runtime directory a
    /// systemd unit makes.
    public init(
        path: String, group: Bool = false, logger: Logger = Logger(label: "upright"),
        refusing: @escaping @Sendable (Int32) -> String? = { _ in nil },
        handler: @escaping @Sendable (String) async -> String
    ) async throws(ControlError) {
        (self.path, self.group, self.logger, self.handler, self.refusing) = (path, group, logger, handler, refusing)
        try Self.prepare(path)
        let connections = Connections()
        self.connections = connections
        listener = Mutex(try await Self.bind(path, group: group, connections: connections))
        let task = Task { [self] in await serve() }
        serving.withLock { $0 = task }
    }

    /// The same with a handler that answers at once.
    public convenience init(path: String, answer: @escaping @Sendable (String) -> String) async throws(ControlError) {
        try await self.init(path: path, logger: Logger(label: "upright"), handler: { line in answer(line) })
    }

    /// The socket file is made with the process's umask (0755 under 0022: no one else may connect,
    /// since connecting needs write permission), then set to 0600 (0660). The umask is not changed
    /// around the bind: it is the whole process's, and a helper program started by another task
    /// meanwhile would keep the narrow one for good (a browser started so in the tests could not
    /// enter its own profile and exited).
    private static func bind(_ path: String, group: Bool, connections: Connections) async throws(ControlError)
        -> Listener
    {
        do {
            // A burst of clients waits in the kernel's queue (no descriptor of the process's) while
            // their connections are taken one by one.
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 1024)
                .childChannelOption(.autoRead, value: false)
                .bind(
                    unixDomainSocketPath: path,
                    serverBackPressureStrategy: .init(lowWatermark: 1, highWatermark: acceptedAhead)
                ) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        connections.add(channel)
                        return channel
                    }
                }
            chmod(path, group ? 0o660 : 0o600)
            return listener
        } catch {
            throw ControlError("cannot listen on \(path): \(error)")
        }
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

    /// Accepts until stopped, each connection served in a child task; idle connections closed
    /// every second; when the listener fails, it listens again a second later.
    private func serve() async {
        await withDiscardingTaskGroup { tasks in
            tasks.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    connections.closeIdle(longerThan: Self.idleLimit)
                    makeRoom()
                }
            }
            while !Task.isCancelled, let current = listener.withLock({ $0 }) {
                do {
                    try await current.executeThenClose { inbound in
                        for try await channel in inbound {
                            makeRoom()
                            tasks.addTask { [self] in await answer(channel) }
                        }
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.error("control socket: the listener failed (\(error)); listening again in 1 s")
                    }
                }
                try? await Task.sleep(for: .seconds(1))
                guard !Task.isCancelled else { break }
                unlink(path)
                let again = try? await Self.bind(path, group: group, connections: connections)
                listener.withLock { $0 = again ?? $0 }
            }
            tasks.cancelAll()
        }
    }

    /// One connection: wrapped on its event loop (only while it is open: a wrapper made is always
    /// closed by `executeThenClose`), the peer checked, its lines answered in order, each reply
    /// one line.
    private func answer(_ channel: any Channel) async {
        defer {
            connections.remove(channel)
            channel.close(promise: nil)
        }
        let wrapped = try? await channel.eventLoop.submit { () throws -> Connection? in
            guard channel.isActive else { return nil }
            let connection = try Connection(
                wrappingChannelSynchronously: channel,
                configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 4)))
            try? channel.syncOptions?.setOption(.autoRead, value: true)
            return connection
        }.get()
        guard let connection = wrapped ?? nil else { return }
        try? await connection.executeThenClose { inbound, outbound in
            if let refusal = await refusal(of: channel) {
                try await outbound.write(ByteBuffer(string: ControlReply.refused(refusal).line + "\n"))
                return
            }
            var lines = LineBuffer()
            for try await chunk in inbound {
                for line in lines.add(Array(chunk.readableBytesView)) {
                    connections.use(channel, busy: true)
                    let reply = await handler(line)
                    connections.use(channel, busy: false)
                    try await outbound.write(ByteBuffer(string: reply + "\n"))
                }
                if lines.overflowed {
                    try await outbound.write(ByteBuffer(string: LineBuffer.tooLong + "\n"))
                    return
                }
            }
        }
    }

    /// Why the peer is not served (`SO_PEERCRED`), or `nil`: this user and root are, and with
    /// `group` the members of this process's group, but never a process ``refusing`` names.
    private func refusal(of channel: any Channel) async -> String? {
        let who = group ? "its own user and group" : "its own user"
        let denied = "permission denied: the control socket serves \(who) only"
        guard let options = channel as? any SocketOptionProvider,
            let peer: PeerCredentials = try? await options.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
            ).get()
        else { return denied }
        if let name = refusing(peer.pid) {
            logger.warning("control socket: refused a connection from \(name) (pid \(peer.pid))")
            return "permission denied: the control socket does not serve \(name)"
        }
        return admits(peer) ? nil : denied
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

    /// With fewer than ``reserve`` descriptors left, the older half of the idle connections is
    /// closed (`accept` may be waiting for one: no new connection would say so); logged at most
    /// once a minute.
    private func makeRoom() {
        guard let left = Self.descriptorsLeft(), left < Self.reserve else { return }
        let closed = connections.closeOlderIdleHalf()
        let now = ContinuousClock.now
        let log = lastLow.withLock { last in
            guard last.map({ now - $0 > .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        guard log else { return }
        logger.warning(
            "control socket: descriptors running low (\(left) left); closed \(closed) idle connections to keep accepting"
        )
    }

    /// The descriptors the process may still open (`RLIMIT_NOFILE` less those open): 0 when
    /// even the look at them needs one it cannot have.
    static func descriptorsLeft() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        guard let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count else {
            return errno == EMFILE || errno == ENFILE ? 0 : nil
        }
        return Int(min(limit.rlim_cur, rlim_t(Int.max))) - open
    }

    /// Serving starts with the server; kept for the services' shape.
    public func start() {}

    /// Stops listening, closes the open connections (and any accepted later) and removes the
    /// socket file.
    public func stop() {
        serving.withLock { $0?.cancel() }
        listener.withLock { $0?.channel.close(promise: nil) }
        connections.closeAll()
        unlink(path)
    }

    /// Open connections now, for status and tests.
    public var openConnections: Int { connections.count }
}

/// `struct ucred` (pid, uid, gid), which Glibc's module map hides behind _GNU_SOURCE.
private struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The open connections, with which is busy and when each was last used: beyond the limit, the
/// one idle longest is closed. Once closed for good (the server stopped), a connection accepted
/// late is closed as it comes.
private final class Connections: Sendable {
    private struct Entry {
        var channel: any Channel
        var busy = false
        var used = ContinuousClock.now
    }

    private let open = Mutex<(entries: [ObjectIdentifier: Entry], closed: Bool)>(([:], false))

    var count: Int { open.withLock { $0.entries.count } }

    /// Registers a new connection, closing the one idle longest when the limit is passed.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let closing: (any Channel)? = open.withLock { open in
            guard !open.closed else { return channel }
            open.entries[id] = Entry(channel: channel)
            guard open.entries.count > ControlServer.connectionLimit else { return nil }
            let idle = open.entries.filter { !$0.value.busy && $0.key != id }.min { $0.value.used < $1.value.used }
            return idle.flatMap { open.entries.removeValue(forKey: $0.key)?.channel }
        }
        closing?.close(promise: nil)
    }

    /// Closes the older half of the idle connections (none of one); returns how many.
    func closeOlderIdleHalf() -> Int {
        let closing = open.withLock { open -> [any Channel] in
            let idle = open.entries.filter { !$0.value.busy }.sorted { $0.value.used < $1.value.used }
            // The newest is never among them: it may be the client that is about to ask.
            let older = idle.prefix(idle.count / 2)
            for (id, _) in older { open.entries[id] = nil }
            return older.map(\.value.channel)
        }
        for channel in closing { channel.close(promise: nil) }
        return closing.count
    }

    /// Closes the connections not busy and unused for `limit`.
    func closeIdle(longerThan limit: Duration) {
        let now = ContinuousClock.now
        let closing = open.withLock { open in
            open.entries.values.filter { !$0.busy && now - $0.used > limit }.map(\.channel)
        }
        for channel in closing { channel.close(promise: nil) }
    }

    func use(_ channel: any Channel, busy: Bool) {
        open.withLock { open in
            open.entries[ObjectIdentifier(channel)]?.busy = busy
            open.entries[ObjectIdentifier(channel)]?.used = .now
        }
    }

    func remove(_ channel: any Channel) {
        _ = open.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func closeAll() {
        let closing = open.withLock { open in
            open.closed = true
            return open.entries.values.map(\.channel)
        }
        for channel in closing { channel.close(promise: nil) }
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
