import Blocking
import Foundation
import Glibc
import Synchronization

/// Whether a stream's server answers: a TCP connection to its host and port (the scheme's port
/// when the URL names none), given up after a timeout. A stream over UDP (`udp://`, `srt://`)
/// cannot be asked this way: it is taken as reachable, and loading it is the question.
enum StreamProbe {
    static let ports = ["rtsp": 554, "rtsps": 322, "rtmp": 1935, "rtmps": 443, "http": 80, "https": 443]

    static func reachable(_ url: String, timeout: Int32 = 500) -> Bool {
        guard let (host, port) = address(url) else { return true }
        guard let fd = connected(host: host, port: port, timeout: timeout) else { return false }
        close(fd)
        return true
    }

    /// The host and TCP port a stream's URL names, or `nil` when it cannot be asked over TCP.
    static func address(_ url: String) -> (host: String, port: Int)? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty, let port = parts.port ?? ports[scheme]
        else { return nil }
        return (host, port)
    }

    /// A connected TCP socket (non-blocking) to the host and port, or `nil`.
    static func connected(host: String, port: Int, timeout: Int32) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(
                a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            if connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if errno == EINPROGRESS, poll(&p, 1, timeout) == 1,
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0
            {
                return fd
            }
            close(fd)
        }
        return nil
    }

    /// Watches a live stream's server while it plays: one idle TCP connection to it, which the
    /// server's going away closes (its process ended, its host restarting). Returns when the
    /// server is gone: the connection closed and a new one refused (or not answered within
    /// `timeout`). A connection the server closes while it still answers (an idle timeout) is made
    /// again, at most once a `pause`. Only for a stream over HTTP (HLS, DASH, an endless HTTP
    /// stream), whose player asks its server only now and then: RTSP and RTMP hold a connection
    /// that mpv sees close, and a camera may serve few connections. Never returns for another
    /// URL, nor once `cancelled` says so (then `false`).
    static func watch(_ url: String, timeout: Int32 = 500, pause: Double = 1, cancelled: () -> Bool) -> Bool {
        let scheme = URLComponents(string: url)?.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let (host, port) = address(url) else {
            while !cancelled() { usleep(250_000) }
            return false
        }
        while !cancelled() {
            guard let fd = connected(host: host, port: port, timeout: timeout) else { return !cancelled() }
            let made = Date()
            var p = pollfd(fd: fd, events: Int16(POLLIN) | 0x2000 /* POLLRDHUP */, revents: 0)
            // Looked at four times a second for the cancel; the server says nothing until it goes.
            while !cancelled() && poll(&p, 1, 250) == 0 { p.revents = 0 }
            close(fd)
            if cancelled() { return false }
            // Closed (or sent something: an HTTP server says nothing first): still there?
            guard reachable(url, timeout: timeout) else { return true }
            let waited = Date().timeIntervalSince(made)
            if waited < pause { usleep(useconds_t((pause - waited) * 1_000_000)) }
        }
        return false
    }
}

/// A live stream's server watched (``StreamProbe/watch(_:timeout:pause:cancelled:)``) for as long
/// as the stream plays, on a thread of its own: held on one of Dispatch's few workers, it would
/// make every other blocking call (a probe, a helper) wait for another.
final class SourceWatch: Sendable {
    let url: String
    private let stopped = Atomic<Bool>(false)

    /// Starts watching; `gone` is called once its server went away (never after ``stop()``).
    init(_ url: String, gone: @escaping @Sendable () -> Void) {
        self.url = url
        Blocking.thread(named: "upright-source-watch") { [self] in
            guard StreamProbe.watch(url, cancelled: { self.stopped.load(ordering: .relaxed) }) else { return }
            gone()
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
