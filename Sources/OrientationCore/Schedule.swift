/// When a playlist item may play: days of the week and a time window of local time, the window
/// possibly across midnight (`22:00`–`06:00`: the night that starts on each listed day). Pure:
/// the caller gives the local weekday and minute.
public struct Schedule: Sendable, Hashable {
    /// 1 Monday … 7 Sunday (ISO 8601); empty: every day.
    public var days: Set<Int>
    /// Minutes after midnight; `nil`: all day.
    public var from: Int?
    public var until: Int?

    public init(days: Set<Int> = [], from: Int? = nil, until: Int? = nil) {
        self.days = days
        self.from = from
        self.until = until
    }

    /// The day names, as written (`mon` … `sun`), by ISO number.
    public static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Parses `HH:MM` (00:00 to 24:00) into minutes after midnight.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...24).contains(h),
            (0..<60).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }

    /// `minutes` after midnight as `HH:MM`.
    public static func text(_ minutes: Int) -> String {
        let (h, m) = (minutes / 60, minutes % 60)
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    private func dayAllowed(_ weekday: Int) -> Bool { days.isEmpty || days.contains(weekday) }

    /// Whether the item may play at `minute` (0..<1440) of `weekday` (1…7).
    public func isActive(weekday: Int, minute: Int) -> Bool {
        guard let from, let until else { return dayAllowed(weekday) }
        if from < until { return dayAllowed(weekday) && minute >= from && minute < until }
        // Across midnight: the evening part belongs to the day, the morning part to the day before.
        if minute >= from { return dayAllowed(weekday) }
        if minute < until { return dayAllowed(weekday == 1 ? 7 : weekday - 1) }
        return false
    }

    /// Minutes from (`weekday`, `minute`) to the next change of ``isActive(weekday:minute:)``;
    /// `nil` when it never changes.
    public func minutesToNextChange(weekday: Int, minute: Int) -> Int? {
        let now = isActive(weekday: weekday, minute: minute)
        var (d, m) = (weekday, minute)
        for step in 1...(8 * 1440) {
            m += 1
            if m == 1440 {
                m = 0
                d = d == 7 ? 1 : d + 1
            }
            if isActive(weekday: d, minute: m) != now { return step }
        }
        return nil
    }
}
