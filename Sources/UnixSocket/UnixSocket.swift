import Glibc

/// A failure of a Unix socket call, with the call, the path and the system's words.
public struct UnixSocketError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// `errno` of the failing call.
    public var code: Int32
}

/// Unix stream sockets, the little Upright needs of them: connect with a timeout, listen, send
/// all of a buffer, read exactly so many bytes or up to a newline. Descriptors are plain `Int32`s
/// owned by the caller; every socket is close-on-exec and never raises SIGPIPE.
public enum UnixSocket {
    /// Connects to `path`; reads and writes then time out after `timeout` seconds.
    public static func connect(_ path: String, timeout: Int = 2) throws(UnixSocketError) -> Int32 {
        let fd = try newSocket()
        var address = try self.address(path)
        setTimeout(fd, seconds: timeout)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let e = failure("connect to \(path)")
            close(fd)
            throw e
        }
        return fd
    }

    /// Whether a listener accepts connections at `path` now: connects and closes at once (a
    /// socket file that a killed server left behind refuses); throws why not.
    public static func probe(_ path: String, timeout: Int = 1) throws(UnixSocketError) {
        close(try connect(path, timeout: timeout))
    }

    /// The process listening at `path` (its credentials as the kernel gave them at connect,
    /// SO_PEERCRED); throws when none accepts.
    public static func listener(of path: String) throws(UnixSocketError) -> Int32 {
        let fd = try connect(path, timeout: 1)
        defer { close(fd) }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (glibc shows it only with _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw failure("read the credentials of \(path)'s listener")
        }
        return credentials.pid
    }

    /// Binds and listens at `path` (the file is created with `mode`, 0600 by default).
    public static func listen(_ path: String, mode: UInt32 = 0o600, backlog: Int32 = 8) throws(UnixSocketError) -> Int32
    {
        let fd = try newSocket()
        var address = try self.address(path)
        // Linux makes the file with the socket's own mode (less the umask): set it first, rather
        // than the umask, which is the whole process's and would reach a program another thread
        // starts meanwhile.
        fchmod(fd, mode_t(mode))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0, Glibc.listen(fd, backlog) == 0 else {
            let e = failure("listen on \(path)")
            close(fd)
            throw e
        }
        chmod(path, mode)
        return fd
    }

    /// The next connection on a listening socket (close-on-exec); `nil` once the socket is shut
    /// down or closed. An interrupted or aborted connection is waited past.
    public static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = Glibc.accept(listener, nil, nil)  // accept4 is hidden behind _GNU_SOURCE
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                return fd
            }
            if errno != EINTR, errno != ECONNABORTED { return nil }
        }
    }

    /// Reads and writes on `fd` time out after `seconds`.
    public static func setTimeout(_ fd: Int32, seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends every byte; false when the peer is gone or the send timed out.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Reads exactly `count` bytes; `nil` when the peer closed or the read timed out first.
    public static func read(_ fd: Int32, exactly count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = buffer[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            got += n
        }
        return buffer
    }

    /// Reads some bytes (at most `limit`); empty when the peer closed, `nil` on a timeout or error.
    public static func read(_ fd: Int32, upTo limit: Int = 4096) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            return Array(buffer[0..<n])
        }
    }

    /// The user id of the process at the other end (`SO_PEERCRED`).
    public static func peerUID(_ fd: Int32) -> UInt32? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.uid
    }

    /// The system's words for the last error.
    public static var lastError: String { String(cString: strerror(errno)) }

    // MARK: - Internals

    /// `struct ucred` (pid, uid, gid), which Glibc's module map hides behind _GNU_SOURCE.
    private struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    private static func newSocket() throws(UnixSocketError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("create a socket") }
        return fd
    }

    private static func address(_ path: String) throws(UnixSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw UnixSocketError(description: "the socket path is too long: \(path)", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func failure(_ what: String) -> UnixSocketError {
        let code = errno
        return UnixSocketError(description: "cannot \(what): \(String(cString: strerror(code)))", code: code)
    }
}
