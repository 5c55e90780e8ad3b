import Session
import Synchronization
import Wire

/// The session's status pushed to whoever listens (the page's events, MQTT's state) instead of
/// each of them asking again and again: one producer, a source of the session, builds the status
/// when the session's loop has handled an input (at most four times a second), and every 15 s
/// whatever happens (the shell's own figures change without an input: dropped frames, the cache,
/// the wall's offset), and hands it to every listener, which says what changed itself. A new
/// listener gets the status at once.
final class StatusFeed: Sendable {
    private let watchers = Mutex<[Int: AsyncStream<SessionStatus>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)
    private let changes: AsyncStream<Void>
    private let poke: AsyncStream<Void>.Continuation

    init() { (changes, poke) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1)) }

    /// Something may have changed: the status is built again soon.
    func changed() { poke.yield() }

    /// The status now, then each new one, until the listener stops listening.
    func subscribe() -> AsyncStream<SessionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextID.add(1, ordering: .relaxed).newValue
        watchers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.removeValue(forKey: id) } }
        poke.yield()
        return stream
    }

    /// Runs until cancelled; `status` is the session's status now (`nil`: it has ended).
    func run(status: @Sendable () async -> SessionStatus?) async {
        var iterator = changes.makeAsyncIterator()
        while !Task.isCancelled {
            let heartbeat = Task { [poke] in
                guard (try? await Task.sleep(for: .seconds(15))) != nil else { return }
                poke.yield()
            }
            let woken: Void? = await iterator.next()
            heartbeat.cancel()
            guard woken != nil else { break }
            try? await Task.sleep(for: .milliseconds(250))  // a burst of inputs is one status
            guard !watchers.withLock({ $0.isEmpty }), let now = await status() else { continue }
            // Each listener says what changed itself (the page sends a new line, MQTT a new state).
            for continuation in watchers.withLock({ Array($0.values) }) { continuation.yield(now) }
        }
        for continuation in watchers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
