/// When each remote item is asked for next, as a value (times in seconds, given): a cached item
/// every `interval`; one that failed again after a back-off that doubles from `retry` up to
/// `interval` (a server that is away is not hammered, and one that comes back is found soon).
/// At most ``parallel`` are asked at once, each on its own: one slow host holds up no other.
public struct RemoteSchedule: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        public var nextAt: Double
        /// Failures in a row.
        public var failures = 0
        /// The last failure's words and when the failures began; `nil` after a success.
        public var problem: String?
        public var failingSince: Double?
        /// Whether the cache has a file for it (a failure then leaves it stale, not missing).
        public var cached: Bool
    }

    public var interval: Double
    public var retry: Double
    public private(set) var items: [String: Item] = [:]
    /// The URLs being asked now (``take(at:)``), until each ``succeeded(_:at:)`` or ``failed(_:why:at:)``.
    public private(set) var asking: Set<String> = []
    /// How many are asked at once.
    public var parallel = 3
    /// Items asked at their own interval rather than ``interval`` (a SMIL index's `Refresh`).
    public private(set) var ownIntervals: [String: Double] = [:]
    /// The shortest own interval taken: no index asks its server more often.
    public static let shortestInterval = 5.0

    public init(interval: Double = 300, retry: Double = 5) {
        (self.interval, self.retry) = (interval, retry)
    }

    /// The playlist's remote URLs now: new ones are due at once (a cached one is asked whether
    /// it changed); ones no longer listed are forgotten.
    public mutating func set(_ urls: [String], cached: (String) -> Bool, at now: Double) {
        var next: [String: Item] = [:]
        for url in urls {
            next[url] = items[url] ?? Item(nextAt: now, cached: cached(url))
        }
        items = next
    }

    /// The URLs due at `now`, in order.
    public func due(at now: Double) -> [String] { items.filter { $0.value.nextAt <= now }.map(\.key).sorted() }

    /// The URLs to ask now: due, not asked already, as many as there are free places, in order.
    public mutating func take(at now: Double) -> [String] {
        let free = max(0, parallel - asking.count)
        let taken = Array(due(at: now).filter { !asking.contains($0) }.prefix(free))
        asking.formUnion(taken)
        return taken
    }

    /// The soonest time one can be asked; `nil` with none (or while every place is taken: an
    /// answer frees one).
    public var nextDeadline: Double? {
        guard asking.count < parallel else { return nil }
        return items.filter { !asking.contains($0.key) }.values.map(\.nextAt).min()
    }

    public mutating func succeeded(_ url: String, at now: Double) {
        asking.remove(url)
        guard items[url] != nil else { return }
        items[url] = Item(nextAt: now + (ownIntervals[url] ?? interval), cached: true)
    }

    /// `url` is asked every `seconds` (``shortestInterval`` at least) from now on; `nil`: every
    /// ``interval`` again. A sooner time than the one set is taken at once.
    public mutating func setInterval(_ url: String, _ seconds: Double?, at now: Double) {
        let own = seconds.map { max(Self.shortestInterval, $0) }
        guard ownIntervals[url] != own else { return }
        ownIntervals[url] = own
        if var item = items[url], item.problem == nil {
            item.nextAt = min(item.nextAt, now + (own ?? interval))
            items[url] = item
        }
    }

    public mutating func failed(_ url: String, why: String, at now: Double) {
        asking.remove(url)
        guard var item = items[url] else { return }
        item.failures += 1
        item.problem = why
        item.failingSince = item.failingSince ?? now
        item.nextAt = now + min(interval, retry * Double(1 << min(item.failures - 1, 20)))
        items[url] = item
    }

    /// A URL's state in words for the status: "cached", "stale", "downloading" or "missing".
    public func state(of url: String) -> String {
        guard let item = items[url] else { return "unknown" }
        switch (item.cached, item.problem) {
        case (true, nil): return "cached"
        case (true, _): return "stale"
        case (false, nil): return "downloading"
        case (false, _): return "missing"
        }
    }
}
