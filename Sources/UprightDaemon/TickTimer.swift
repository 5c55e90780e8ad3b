import Session

/// The one timer of the loop: a tick at the core's next deadline.
struct TickTimer<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let origin: C.Instant
    let feed: AsyncStream<SessionInput>.Continuation
    private var deadline: Double?
    private var task: Task<Void, Never>?

    init(clock: C, origin: C.Instant, feed: AsyncStream<SessionInput>.Continuation) {
        (self.clock, self.origin, self.feed) = (clock, origin, feed)
    }

    /// The tick came: the next deadline is scheduled anew, even when it is the same.
    mutating func fired() { deadline = nil }

    /// Ticks at `next` (seconds from the origin), in place of any tick scheduled before.
    mutating func schedule(_ next: Double?) {
        guard next != deadline else { return }
        task?.cancel()
        deadline = next
        guard let next else { return }
        let (clock, instant, feed) = (clock, origin.advanced(by: .seconds(next)), feed)
        task = Task {
            guard (try? await clock.sleep(until: instant, tolerance: nil)) != nil else { return }
            feed.yield(.tick)
        }
    }
}
