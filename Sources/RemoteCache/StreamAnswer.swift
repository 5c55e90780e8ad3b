import AsyncHTTPClient
import NIOCore
import NIOSSL

/// Whether a live stream's HTTP server serves it again (a lost stream is loaded again only once
/// it does): its URL asked with a GET, the answer's head and its body (to its end, or its first
/// 64 KB for an endless stream) within a deadline. A server that takes the connection but stalls,
/// resets it or answers 5xx (a proxy or a CDN in front of a dead origin) does not serve it; a TCP
/// connection alone would say it does, and the stream would be loaded again and again in vain.
public enum StreamAnswer {
    /// How much of the body is read at most: an HLS playlist whole, a few packets of an endless stream.
    static let enough = 64 * 1024

    /// One client for every probe, for the life of the process: a connection given up after 1 s,
    /// a read after 2 s without a byte (a stall after the head). A refused connection is a "no" at
    /// once (``RemoteCache/noBackoff(_:)``): the player asks again every half second, and the
    /// client's own backoff, grown through an outage, would hold the answer back after it.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(1), read: .seconds(2))
        configuration.connectionPool = RemoteCache.noBackoff(.init(idleTimeout: .seconds(5)))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Whether `url` is served within `within`: a 2xx answer (redirects followed) whose body came
    /// to its end or to 64 KB, with no pause of 2 s. A TLS handshake that fails is a server that answers: the
    /// player checks the stream's certificate with its own settings, not this probe.
    public static func answers(_ url: String, within: Duration = .seconds(2)) async -> Bool {
        let deadline = NIODeadline.now() + .milliseconds(RemoteCache.milliseconds(within))
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), deadline: deadline)
            guard (200..<300).contains(response.status.code) else {
                _ = try? await response.body.collect(upTo: enough)
                return false
            }
            var read = 0
            for try await part in response.body {
                read += part.readableBytes
                if read >= enough { break }
                guard NIODeadline.now() < deadline else { return false }  // a trickle
            }
            return true
        } catch is NIOSSLError {
            return true
        } catch {
            return false
        }
    }
}
