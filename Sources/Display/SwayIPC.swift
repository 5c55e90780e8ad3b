import Blocking
import Foundation
import Glibc
import Synchronization
import UnixSocket

/// A client of sway's IPC socket (the i3 protocol: `i3-ipc`, a 32-bit length and type in the
/// machine's byte order, then JSON). One connection, kept open and reopened after a failure;
/// each request has a 2-second timeout.
public final class SwayIPC: Sendable {
    /// The message types Upright sends.
    public enum Message: UInt32, Sendable {
        case runCommand = 0
        case subscribe = 2
        case getOutputs = 3
        case getTree = 4
        case getVersion = 7
        case getInputs = 100
    }

    public let socketPath: String
    private let connection = Mutex<Int32>(-1)
    private static let magic = Array("i3-ipc".utf8)

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    deinit {
        connection.withLock { fd in if fd >= 0 { close(fd) } }
    }

    /// Sends one message and returns the reply's JSON text; the socket's exchange runs through
    /// ``Blocking``.
    func request(_ type: Message, _ payload: String = "") async throws(DisplayError) -> Data {
        try await Blocking.run { () throws(DisplayError) in try self.exchange(type, payload) }
    }

    /// One exchange on the kept connection. The connection is taken out of its lock for the
    /// exchange (no lock is held across the socket's I/O) and put back after it; a request made
    /// meanwhile opens a connection of its own, closed when it is done.
    private func exchange(_ type: Message, _ payload: String) throws(DisplayError) -> Data {
        var fd = connection.withLock { kept in
            defer { kept = -1 }
            return kept
        }
        defer {
            connection.withLock { kept in
                if kept < 0 { kept = fd } else if fd >= 0 { close(fd) }
            }
        }
        // One retry on a fresh connection: the compositor may have restarted since the last call.
        var lastError = DisplayError("")
        for _ in 0..<2 {
            if fd < 0 {
                switch Self.connect(socketPath) {
                case .success(let newFD): fd = newFD
                case .failure(let e): throw e
                }
            }
            switch Self.exchange(fd, type, payload) {
            case .success(let data): return data
            case .failure(let e):
                close(fd)
                fd = -1
                lastError = e
            }
        }
        throw lastError
    }

    /// Runs sway commands (`output HEADLESS-1 transform 90`) and fails with sway's own error
    /// when any of them did not succeed.
    public func run(_ command: String) async throws(DisplayError) {
        struct Result: Decodable {
            var success: Bool
            var error: String?
        }
        let replies = try decode(
            [Result].self, await request(.runCommand, command), what: "the results of '\(command)'")
        for r in replies where !r.success {
            throw DisplayError("sway refused '\(command)': \(r.error ?? "no reason given")")
        }
    }

    /// sway's events of the given kinds (`["output"]`), on a connection of their own read by a
    /// thread of its own: the stream yields once per event and finishes when sway goes away.
    /// A sway that does not send these events (1.7 has no `output` event) is asked once a second
    /// instead: the stream then yields every second.
    func events(_ kinds: [String]) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let fd: Int32
        switch Self.connect(socketPath) {
        case .success(let f): fd = f
        case .failure:
            continuation.finish()
            return stream
        }
        UnixSocket.setTimeout(fd, seconds: 0)  // wait for events as long as sway lives
        // `ended`: the stream's reader went away; `closed`: the thread closed the socket. Both under
        // one lock, so the socket is never shut down after it is closed (its number may be reused).
        let state = Mutex((ended: false, closed: false))
        let ended: @Sendable () -> Bool = { state.withLock { $0.ended } }
        continuation.onTermination = { _ in
            state.withLock {
                $0.ended = true
                if !$0.closed { shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }
        let payload = "[" + kinds.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        Blocking.thread(named: "upright-sway-events") {
            defer {
                continuation.finish()
                state.withLock {
                    $0.closed = true
                    close(fd)
                }
            }
            struct Reply: Decodable { var success: Bool }
            guard case .success(let reply) = Self.exchange(fd, .subscribe, payload) else { return }
            guard (try? JSONDecoder().decode(Reply.self, from: reply))?.success == true else {
                while !ended() {
                    usleep(1_000_000)
                    continuation.yield()
                }
                return
            }
            while let header = UnixSocket.read(fd, exactly: 14), Array(header[0..<6]) == Self.magic {
                let length = header[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                guard UnixSocket.read(fd, exactly: Int(length)) != nil else { return }
                continuation.yield()
            }
        }
        return stream
    }

    /// A reply decoded as `type`; a reply of another shape is an error that names `what` was asked.
    func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws(DisplayError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw DisplayError("sway's reply to \(what) is not what sway 1.7 sends: \(error)")
        }
    }

    private static func connect(_ path: String) -> Result<Int32, DisplayError> {
        do throws(UnixSocketError) {
            return .success(try UnixSocket.connect(path, timeout: 2))
        } catch {
            return .failure(DisplayError("sway's socket: \(error)"))
        }
    }

    private static func exchange(_ fd: Int32, _ type: Message, _ payload: String) -> Result<Data, DisplayError> {
        var message = magic
        let body = Array(payload.utf8)
        withUnsafeBytes(of: UInt32(body.count)) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: type.rawValue) { message.append(contentsOf: $0) }
        message.append(contentsOf: body)
        guard UnixSocket.sendAll(fd, message) else {
            return .failure(DisplayError("cannot write to sway's socket: \(UnixSocket.lastError)"))
        }
        // Replies come in order; skip any event (high bit set) that is not ours.
        while true {
            guard let header = UnixSocket.read(fd, exactly: 14) else {
                return .failure(DisplayError("sway's socket closed or timed out before a reply"))
            }
            guard Array(header[0..<6]) == magic else {
                return .failure(DisplayError("sway's socket sent something that is not an i3-ipc reply"))
            }
            let length = header[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            let replyType = header[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            guard let body = UnixSocket.read(fd, exactly: Int(length)) else {
                return .failure(DisplayError("sway's socket closed in the middle of a reply"))
            }
            if replyType == type.rawValue { return .success(Data(body)) }
        }
    }
}
