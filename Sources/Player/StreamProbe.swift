import Foundation
import Glibc

/// Whether a stream's server answers: a TCP connection to its host and port (the scheme's port
/// when the URL names none), given up after a timeout. A stream over UDP (`udp://`, `srt://`)
/// cannot be asked this way: it is taken as reachable, and loading it is the question.
enum StreamProbe {
    static let ports = ["rtsp": 554, "rtsps": 322, "rtmp": 1935, "rtmps": 443, "http": 80, "https": 443]

    static func reachable(_ url: String, timeout: Int32 = 500) -> Bool {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty
        else { return true }
        guard let port = parts.port ?? ports[scheme] else { return true }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(first) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, timeout) == 1 else { continue }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return true }
        }
        return false
    }
}
