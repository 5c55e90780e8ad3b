/// A log that says a repeating line once, then counts it: a file that cannot play, retried every
/// 10 s, is a few lines and an hourly "(the same 360 times in the last hour)", not 360 lines.
///
/// A line said before within the window is held back (counted) when nothing new was said since
/// it was last said: a loop of the same lines is folded, while a line that follows news is still
/// written (connected, lost, connected: all three). When a line's window has passed, its count
/// is written after it (if any was held back) and its next time is news again. Times are
/// explicit (seconds).
public struct RepeatedLines: Sendable {
    public let window: Double
    /// At most this many different lines are remembered (the least recent is forgotten first).
    public let capacity: Int
    private struct Seen {
        var since: Double
        var times = 1
        var heldBack = 0
        var last: Int
    }
    private var seen: [String: Seen] = [:]
    /// Lines admitted so far, and the number of the last one that was news (not said before).
    private var count = 0
    private var lastNews = -1

    public init(window: Double = 3600, capacity: Int = 256) {
        (self.window, self.capacity) = (window, capacity)
    }

    /// The lines to write now for `line` at `now`: the counts of windows that ended first, then
    /// the line unless it is held back.
    public mutating func admit(_ line: String, at now: Double) -> [String] {
        var out = flush(at: now)
        count += 1
        if var entry = seen[line] {
            let held = lastNews <= entry.last
            entry.times += 1
            entry.last = count
            if held { entry.heldBack += 1 }
            seen[line] = entry
            return held ? out : out + [line]
        }
        if seen.count >= capacity, let oldest = seen.min(by: { $0.value.since < $1.value.since })?.key {
            out += summary(of: oldest)
            seen[oldest] = nil
        }
        seen[line] = Seen(since: now, last: count)
        lastNews = count
        out.append(line)
        return out
    }

    /// The counts of the windows that have ended by `now`, each line's window closed.
    public mutating func flush(at now: Double) -> [String] {
        let ended = seen.filter { now - $0.value.since >= window }.sorted { $0.value.since < $1.value.since }
        return ended.flatMap { line, _ in
            defer { seen[line] = nil }
            return summary(of: line)
        }
    }

    /// Every count not yet written (at the end of the log).
    public mutating func flushAll() -> [String] { flush(at: .infinity) }

    private func summary(of line: String) -> [String] {
        guard let entry = seen[line], entry.heldBack > 0 else { return [] }
        let span =
            window >= 3600 && window.truncatingRemainder(dividingBy: 3600) == 0
            ? Self.hours(window) : "\(Int(window)) s"
        return ["\(line) (the same \(entry.times) times in the last \(span))"]
    }

    private static func hours(_ seconds: Double) -> String {
        seconds == 3600 ? "hour" : "\(Int(seconds / 3600)) hours"
    }
}
