import CMosquitto
import Foundation
public import Settings
import Synchronization

/// What the client reports.
public enum MQTTEvent: Sendable, Hashable {
    /// Connected (again): subscriptions and retained state should be sent now.
    case connected
    /// The connection was refused or lost, with the reason; libmosquitto tries again with back-off.
    case disconnected(String)
    /// A message, with when it arrived (the system clock, in Unix seconds: an exchange of clocks
    /// reads it as near the wire as it can), and whether the broker kept it (`retained`: sent
    /// because this client subscribed, the state of before, not news).
    case message(topic: String, payload: [UInt8], at: Double, retained: Bool)
}

/// An MQTT client through libmosquitto's threaded interface: it connects in the background,
/// reconnects with back-off (1 s doubling to 30 s) whenever the broker goes away, and reports
/// through ``events``. A broker that is down or refuses never blocks the caller. What comes in is
/// bounded: a message larger than its limit is dropped before it is copied, and so is one that
/// finds its queue full (messages not taken from ``events`` yet); ``dropped`` counts both.
public final class MQTTClient: Sendable {
    public let events: Events
    private let handle: Handle

    /// The mosquitto struct, owned here; libmosquitto's calls are thread safe on it.
    final class Handle: @unchecked Sendable {
        let pointer: OpaquePointer
        let continuation: AsyncStream<MQTTEvent>.Continuation
        let limits: (payload: Int, queue: Int)
        /// Messages in the stream and not taken yet; messages dropped.
        let pending = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)
        init(pointer: OpaquePointer, continuation: AsyncStream<MQTTEvent>.Continuation, limits: (Int, Int)) {
            (self.pointer, self.continuation, self.limits) = (pointer, continuation, limits)
        }
    }

    /// The client's events; each message taken makes room for another.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = MQTTEvent
        public typealias Failure = Never
        let stream: AsyncStream<MQTTEvent>
        let handle: Handle

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<MQTTEvent>.AsyncIterator
            let handle: Handle
            public mutating func next() async -> MQTTEvent? {
                let e = await base.next()
                if case .message? = e { handle.pending.subtract(1, ordering: .relaxed) }
                return e
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), handle: handle)
        }
    }

    /// Messages dropped so far: larger than the client's limit, or with its queue full.
    public var dropped: Int { handle.dropped.load(ordering: .relaxed) }

    private static let initialised: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Prepares a client named `id` for `endpoint`, with a last will (retained) published by the
    /// broker when the connection is lost; starts connecting at once. A message's payload may be
    /// `maxPayload` bytes at most, and `queue` messages may wait at most.
    public init(
        id: String, endpoint: MQTTEndpoint, will: (topic: String, payload: String)?, maxPayload: Int = 64 * 1024,
        queue: Int = 256
    ) throws(MQTTError) {
        _ = Self.initialised
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
        guard let m = mosquitto_new(id, true, nil) else {
            throw MQTTError("cannot create an MQTT client: \(String(cString: strerror(errno)))")
        }
        handle = Handle(pointer: m, continuation: continuation, limits: (maxPayload, queue))
        events = Events(stream: stream, handle: handle)
        mosquitto_user_data_set(m, Unmanaged.passUnretained(handle).toOpaque())
        func check(_ r: Int32, _ what: String) throws(MQTTError) {
            guard r == MOSQ_ERR_SUCCESS.rawValue else {
                mosquitto_destroy(m)
                throw MQTTError("\(what): \(String(cString: mosquitto_strerror(r)))")
            }
        }
        if let will {
            let bytes = Array(will.payload.utf8)
            try check(mosquitto_will_set(m, will.topic, Int32(bytes.count), bytes, 1, true), "the last will")
        }
        if endpoint.username != nil || endpoint.password != nil {
            try check(mosquitto_username_pw_set(m, endpoint.username, endpoint.password), "the credentials")
        }
        if endpoint.tls {
            let caPath = endpoint.caFile == nil ? "/etc/ssl/certs" : nil
            try check(mosquitto_tls_set(m, endpoint.caFile, caPath, nil, nil, nil), "TLS")
        }
        mosquitto_reconnect_delay_set(m, 1, 30, true)
        // Small messages go at once (a wall's clock exchanges would wait for Nagle's 40 ms).
        mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1)
        Self.setCallbacks(m)
        try check(mosquitto_loop_start(m), "the MQTT thread")
        // An unreachable broker is not an error here: the thread keeps trying with back-off.
        let r = mosquitto_connect_async(m, endpoint.host, Int32(endpoint.port), 30)
        if r != MOSQ_ERR_SUCCESS.rawValue {
            let why =
                r == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(r))
            continuation.yield(.disconnected("cannot reach \(endpoint.host):\(endpoint.port): \(why)"))
            mosquitto_reconnect_async(m)
        }
    }

    /// libmosquitto's callbacks (on its own thread): each becomes an event of the handle's stream.
    private static func setCallbacks(_ m: OpaquePointer) {
        mosquitto_connect_callback_set(m) { _, data, code in
            let h = Unmanaged<Handle>.fromOpaque(data!).takeUnretainedValue()
            if code == 0 {
                h.continuation.yield(.connected)
            } else {
                h.continuation.yield(.disconnected(String(cString: mosquitto_connack_string(code))))
            }
        }
        mosquitto_disconnect_callback_set(m) { _, data, code in
            let h = Unmanaged<Handle>.fromOpaque(data!).takeUnretainedValue()
            guard code != 0 else { return }  // asked for
            h.continuation.yield(.disconnected(String(cString: mosquitto_strerror(code))))
        }
        mosquitto_message_callback_set(m) { _, data, message in
            guard let data, let message else { return }
            let h = Unmanaged<Handle>.fromOpaque(data).takeUnretainedValue()
            let at = MQTTClient.systemTime()
            let msg = message.pointee
            // Dropped before a copy: too large, or its queue full.
            guard Int(msg.payloadlen) <= h.limits.payload,
                h.pending.add(1, ordering: .relaxed).newValue <= h.limits.queue
            else {
                if Int(msg.payloadlen) <= h.limits.payload { h.pending.subtract(1, ordering: .relaxed) }
                h.dropped.add(1, ordering: .relaxed)
                return
            }
            let topic = String(cString: msg.topic)
            let payload =
                msg.payloadlen > 0
                ? Array(UnsafeRawBufferPointer(start: msg.payload, count: Int(msg.payloadlen))) : []
            h.continuation.yield(.message(topic: topic, payload: payload, at: at, retained: msg.retain))
        }
    }

    /// The system clock (`CLOCK_REALTIME`) in Unix seconds.
    public static func systemTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Publishes `payload` to `topic` (QoS 1); queued while disconnected is not kept: the state is
    /// published again at each connection.
    /// `atMostOnce` (QoS 0): no acknowledgement from the broker, whose packet would go just ahead
    /// of an answer and hold it back (a clock exchange's) until this side's TCP acknowledges it.
    @discardableResult
    public func publish(_ topic: String, _ payload: String, retain: Bool = false, atMostOnce: Bool = false) -> Bool {
        publish(topic, bytes: Array(payload.utf8), retain: retain, atMostOnce: atMostOnce)
    }

    /// Publishes bytes as they are (a picture).
    @discardableResult
    public func publish(_ topic: String, bytes: [UInt8], retain: Bool = false, atMostOnce: Bool = false) -> Bool {
        mosquitto_publish(handle.pointer, nil, topic, Int32(bytes.count), bytes, atMostOnce ? 0 : 1, retain)
            == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Subscribes at most once (QoS 0): what comes is not acknowledged (``publish(_:_:retain:atMostOnce:)``).
    @discardableResult
    public func subscribeAtMostOnce(_ pattern: String) -> Bool {
        mosquitto_subscribe(handle.pointer, nil, pattern, 0) == MOSQ_ERR_SUCCESS.rawValue
    }

    @discardableResult
    public func subscribe(_ pattern: String) -> Bool {
        mosquitto_subscribe(handle.pointer, nil, pattern, 1) == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Publishes `finalMessage` (the availability's "offline") and disconnects; the thread ends.
    public func close(finalMessage: (topic: String, payload: String)? = nil) {
        if let finalMessage { publish(finalMessage.topic, finalMessage.payload, retain: true) }
        mosquitto_disconnect(handle.pointer)
        mosquitto_loop_stop(handle.pointer, false)
        handle.continuation.finish()
    }

    deinit {
        mosquitto_loop_stop(handle.pointer, true)
        mosquitto_destroy(handle.pointer)
    }
}
