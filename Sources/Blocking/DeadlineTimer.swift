/// A core's time in its shell: seconds since an origin on a clock (a test's own, in tests), and
/// the shell's one timer, which fires at the core's next deadline. A new deadline replaces the
/// one before.
public struct DeadlineTimer: Sendable {
    /// Seconds since the origin, now.
    public let now: @Sendable () -> Double
    private let sleep: @Sendable (Double) async throws -> Void
    private var deadline: Double?
    private var task: Task<Void, Never>?

    /// The origin is `origin`, or the clock's time now.
    public init<C: Clock>(_ clock: C, origin: C.Instant? = nil) where C.Duration == Duration {
        let origin = origin ?? clock.now
        now = {
            let (seconds, attoseconds) = origin.duration(to: clock.now).components
            return Double(seconds) + Double(attoseconds) * 1e-18
        }
        sleep = { t in try await clock.sleep(until: origin.advanced(by: .seconds(t)), tolerance: nil) }
    }

    /// `fire` is called at `next` (seconds since the origin), in place of any call scheduled
    /// before; `nil`: none. The same deadline again changes nothing until ``fired()``.
    public mutating func schedule(_ next: Double?, fire: @escaping @Sendable () async -> Void) {
        guard next != deadline else { return }
        cancel()
        deadline = next
        guard let next else { return }
        let sleep = sleep
        task = Task {
            guard (try? await sleep(next)) != nil else { return }
            await fire()
        }
    }

    /// The timer fired: the next deadline is scheduled anew, even when it is the same.
    public mutating func fired() { deadline = nil }

    /// No call is due any more.
    public mutating func cancel() {
        task?.cancel()
        task = nil
        deadline = nil
    }
}
