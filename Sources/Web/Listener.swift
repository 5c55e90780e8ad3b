import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The limits every listener of Upright's (the page, `/metrics`) holds to, whoever connects: a
/// client that can reach the port can open connections, but never use up the process's
/// descriptors, nor keep out the operator's browser or a Prometheus scrape.
public struct ListenerLimits: Sendable, Hashable {
    /// Connections open at once; one more closes the oldest that is not being answered (an idle
    /// connection, or one whose request head has not come in full).
    public var connections: Int
    /// Seconds a connection may stay without a request coming in full: idle between requests,
    /// or still sending its head (a slow-header client is closed this long after it opened, as
    /// a complete request part is what counts).
    public var idle: Duration
    /// The largest request head, in bytes.
    public var head: Int

    public init(connections: Int = 64, idle: Duration = .seconds(10), head: Int = 16 * 1024) {
        (self.connections, self.idle, self.head) = (connections, idle, head)
    }
}

/// The connections of one listener, oldest first, and which of them are being answered.
final class Connections: Sendable {
    struct Open {
        let id: ObjectIdentifier
        let channel: any Channel
        var answering = 0
        /// Closed to make room, and not gone yet.
        var closing = false
    }
    private let open = Mutex<[Open]>([])
    let limit: Int
    /// Connections closed to make room.
    let evicted = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// The connections open and not being closed.
    var count: Int { open.withLock { $0.count(where: { !$0.closing }) } }

    /// A new connection: past the limit, the oldest one not being answered is closed (the new
    /// one itself when every other one is).
    func opened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let victim: (any Channel)? = open.withLock { open in
            open.append(Open(id: id, channel: channel))
            guard open.count(where: { !$0.closing }) > limit else { return nil }
            let i = open.firstIndex { !$0.closing && $0.answering == 0 && $0.id != id } ?? open.count - 1
            open[i].closing = true
            return open[i].channel
        }
        channel.closeFuture.whenComplete { [self] _ in open.withLock { $0.removeAll { $0.id == id } } }
        if let victim {
            evicted.add(1, ordering: .relaxed)
            victim.close(promise: nil)
        }
    }

    /// A request on `channel` is being answered (`true`) or was answered.
    func answering(_ channel: any Channel, _ on: Bool) {
        let id = ObjectIdentifier(channel)
        open.withLock { open in
            if let i = open.firstIndex(where: { $0.id == id }) { open[i].answering += on ? 1 : -1 }
        }
    }
}

/// A child channel that counts its connections (``Connections``), around HTTP/1 or TLS.
struct CountedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let connections: Connections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        connections.opened(channel)
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async { await base.handle(value: value, logger: logger) }
}

extension HTTPServerBuilder {
    /// HTTP/1 (over TLS with `tls`) within `limits`, its connections counted in `connections`.
    static func limited(
        _ limits: ListenerLimits, tls: TLSConfiguration? = nil, connections: Connections
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let counted: HTTPChannelHandler.Responder = { request, writer, channel in
                connections.answering(channel, true)
                defer { connections.answering(channel, false) }
                try await responder(request, writer, channel)
            }
            var configuration = HTTP1Channel.Configuration(idleTimeout: .init(limits.idle))
            configuration.httpDecoder = .init(maxHeaderFieldSize: limits.head, maxHeaderListSize: limits.head)
            let http = HTTP1Channel(responder: counted, configuration: configuration)
            guard let tls else { return CountedChannel(base: http, connections: connections) }
            return CountedChannel(base: try TLSChannel(http, tlsConfiguration: tls), connections: connections)
        }
    }
}
