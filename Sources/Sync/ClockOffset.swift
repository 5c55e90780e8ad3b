/// One NTP-style exchange with the group's reference node: `sent` and `received` on this node's
/// clock, `answered` (its receipt and its reply, one instant here) on the reference's. Seconds.
public struct ClockExchange: Sendable, Hashable {
    public var sent: Double
    public var remoteReceived: Double
    public var remoteSent: Double
    public var received: Double

    public init(sent: Double, remoteReceived: Double, remoteSent: Double, received: Double) {
        self.sent = sent
        self.remoteReceived = remoteReceived
        self.remoteSent = remoteSent
        self.received = received
    }

    /// How far the reference's clock is ahead of this one's, as NTP reckons it (the two paths'
    /// delays taken as equal).
    public var offset: Double { ((remoteReceived - sent) + (remoteSent - received)) / 2 }
    /// The round trip, less the time the reference held the message.
    public var delay: Double { (received - sent) - (remoteSent - remoteReceived) }
}

/// This node's estimate of the group's clock from its exchanges with the reference. A broker that
/// held one message back tells nothing of the clocks, so of every ``chunk`` exchanges in a row only
/// the quickest counts (its error is at most half its round trip's asymmetry). Once those span
/// ``rateSpan`` seconds a line through them gives the rate at which the two clocks part too (a
/// crystal's 100 ppm is 0.36 s an hour; a clock made to run 1000 ppm fast parts by a millisecond
/// a second), and the estimate follows it; before that, the newest quick exchange decides.
public struct ClockOffset: Sendable, Hashable {
    /// The exchanges kept, oldest first.
    public private(set) var exchanges: [ClockExchange] = []
    /// How many are kept (at one exchange every 2 s, two minutes).
    public var keep = 64
    /// Of this many exchanges in a row, the quickest is taken.
    public var chunk = 4
    /// Quick exchanges slower than the quickest of all by more than this are left out.
    public var slack = 0.005
    /// A rate is fitted only over at least this many seconds.
    public var rateSpan = 20.0

    public init() {}

    public mutating func add(_ e: ClockExchange) {
        guard e.delay >= 0, e.delay.isFinite, e.offset.isFinite else { return }
        exchanges.append(e)
        if exchanges.count > keep { exchanges.removeFirst(exchanges.count - keep) }
    }

    /// Forgets every exchange (the reference changed: its clock is another one).
    public mutating func reset() { exchanges = [] }

    /// The round trip of the quickest exchange kept.
    public var quickest: Double? { exchanges.map(\.delay).min() }

    /// The quickest of each chunk, newest chunk first (a chunk of the newest may be short).
    var picks: [ClockExchange] {
        var out: [ClockExchange] = []
        var end = exchanges.count
        while end > 0 {
            let chunk = exchanges[max(0, end - chunk)..<end]
            if let best = chunk.min(by: { $0.delay < $1.delay }) { out.append(best) }
            end -= self.chunk
        }
        guard let quickest else { return [] }
        return out.filter { $0.delay <= quickest + slack }
    }

    /// How far the group's clock is ahead of this node's at `t` (this node's clock); `nil`
    /// before the first exchange.
    public func offset(at t: Double) -> Double? {
        let good = picks
        guard let newest = good.first else { return nil }
        let times = good.map { ($0.sent + $0.received) / 2 }
        guard good.count >= 3, let last = times.first, let first = times.last, last - first >= rateSpan else {
            return newest.offset
        }
        let offsets = good.map(\.offset)
        let n = Double(good.count)
        let meanT = times.reduce(0, +) / n
        let meanO = offsets.reduce(0, +) / n
        var sxy = 0.0
        var sxx = 0.0
        for (x, y) in zip(times, offsets) {
            sxy += (x - meanT) * (y - meanO)
            sxx += (x - meanT) * (x - meanT)
        }
        guard sxx > 0 else { return newest.offset }
        // A line through the quick exchanges; past the newest one it goes on at the same rate.
        return meanO + sxy / sxx * (t - meanT)
    }
}
