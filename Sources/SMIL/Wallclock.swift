/// A `wallclock(…)` time: a date and time of day, in local time unless a zone is given, maybe
/// repeating (`R/2021-04-01T00:00:00/PT15S`, ISO 8601's repeating interval), maybe on a weekday
/// (`2020-01-01+w3T19:10`: the first Wednesday on or after that date, as ADAPI players read it;
/// `-w3` the last on or before). A time alone (`17:22:10`) is today's.
public struct Wallclock: Sendable, Hashable {
    /// Days since 1970-01-01; `nil` for today.
    public var day: Int?
    /// `+wN` or `-wN`: ISO weekday 1 (Monday) … 7 (Sunday), on or after (`+`) or on or before.
    public var weekday: (day: Int, after: Bool)? {
        get { weekdayNumber == 0 ? nil : (abs(weekdayNumber), weekdayNumber > 0) }
        set { weekdayNumber = newValue.map { $0.after ? $0.day : -$0.day } ?? 0 }
    }
    var weekdayNumber = 0
    /// Seconds into the day.
    public var time: Double
    /// Seconds east of UTC; `nil` for the player's local time.
    public var utcOffset: Int?
    /// How many times after the first it comes again; `nil` for ever. 0 when it does not repeat.
    public var repeats: Int?
    public var period: Period

    /// An ISO 8601 duration: months (years as 12), days (weeks as 7) and seconds.
    public struct Period: Sendable, Hashable {
        public var months = 0, days = 0
        public var seconds = 0.0
        public var isZero: Bool { months == 0 && days == 0 && seconds == 0 }
    }

    public init?(_ text: Substring) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: repeats = 0; period = Period()
        case 3:
            guard parts[0].first == "R", let p = Self.period(parts[2]) else { return nil }
            let count = parts[0].dropFirst()
            if count.isEmpty {
                repeats = nil
            } else {
                guard let n = Int(count), n >= 0 else { return nil }
                repeats = n
            }
            period = p
            if p.isZero { repeats = 0 }
        default: return nil
        }
        time = 0
        guard dateTime(parts.count == 1 ? parts[0] : parts[1]) else { return nil }
    }

    private mutating func dateTime(_ text: Substring) -> Bool {
        let t = text.trimmingWhitespace()
        let halves = t.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        var clock: Substring? = halves.count == 2 ? halves[1] : nil
        if halves.count == 1 {
            if t.contains(":") { clock = t } else { return date(t) }
        } else if !date(halves[0]) {
            return false
        }
        guard let clock else { return true }
        return timeOfDay(clock)
    }

    private mutating func date(_ t: Substring) -> Bool {
        var d = t
        if let w = d.firstIndex(of: "w"), w > d.startIndex {
            let sign = d[d.index(before: w)]
            guard sign == "+" || sign == "-", let n = Int(d[d.index(after: w)...]), (1...7).contains(n) else {
                return false
            }
            weekday = (n, sign == "+")
            d = d[..<d.index(before: w)]
        }
        let ymd = d.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard ymd.count == 3, let y = ymd[0], let m = ymd[1], let dd = ymd[2], (1...12).contains(m),
            (1...Civil.daysIn(month: m, year: y)).contains(dd), (1...9999).contains(y)
        else { return false }
        day = Civil.days(year: y, month: m, day: dd)
        return true
    }

    private mutating func timeOfDay(_ text: Substring) -> Bool {
        var t = text
        if t.hasSuffix("Z") {
            utcOffset = 0
            t = t.dropLast()
        } else if let sign = t.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = t[t.index(after: sign)...].split(separator: ":").compactMap { Int($0) }
            guard zone.count == 2 || (zone.count == 1 && t.distance(from: sign, to: t.endIndex) == 5) else {
                return false
            }
            let (h, m) = zone.count == 2 ? (zone[0], zone[1]) : (zone[0] / 100, zone[0] % 100)
            guard h < 24, m < 60 else { return false }
            utcOffset = (t[sign] == "-" ? -1 : 1) * (h * 3600 + m * 60)
            t = t[..<sign]
        }
        let hms = t.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 2 || hms.count == 3, let h = Int(hms[0]), let m = Int(hms[1]), h < 24, m < 60 else {
            return false
        }
        let s = hms.count == 3 ? ClockValue.number(hms[2], fraction: true) : 0
        guard let s, s < 60 else { return false }
        time = Double(h * 3600 + m * 60) + s
        return true
    }

    /// `P1Y2M3W4DT5H6M7.5S`; `nil` when it is not such a duration.
    static func period(_ text: Substring) -> Period? {
        guard text.first == "P", text.count > 1 else { return nil }
        var p = Period(), digits = "", inTime = false
        for c in text.dropFirst() {
            if c.isASCIIDigit || c == "." {
                digits.append(c)
                continue
            }
            if c == "T" && digits.isEmpty && !inTime {
                inTime = true
                continue
            }
            guard let n = Double(digits), n <= 1_000_000 else { return nil }
            digits = ""
            switch (c, inTime) {
            case ("Y", false): p.months += Int(n) * 12
            case ("M", false): p.months += Int(n)
            case ("W", false): p.days += Int(n) * 7
            case ("D", false): p.days += Int(n)
            // Hours and seconds are read without the `T` too (`P0H`, as CMSes write it).
            case ("H", _): p.seconds += n * 3600
            case ("M", true): p.seconds += n * 60
            case ("S", _): p.seconds += n
            default: return nil
            }
        }
        return digits.isEmpty ? p : nil
    }

    /// The instance `k` (0 the first), in UTC seconds, for a player at `utcOffset` whose today
    /// holds `utc`.
    func instance(_ k: Int, today utc: Double, localOffset: Int) -> Double {
        let zone = utcOffset ?? localOffset
        var start = day ?? Int(((utc + Double(localOffset)) / 86_400).rounded(.down))
        if let w = weekday {
            let now = Civil.weekday(start)
            start += w.after ? (w.day - now + 7) % 7 : -((now - w.day + 7) % 7)
        }
        let shifted = Civil.adding(months: period.months * k, to: start) + period.days * k
        return Double(shifted) * 86_400 + time + period.seconds * Double(k) - Double(zone)
    }

    /// The first instance at or after `utc` (`atOrAfter`), or the last at or before it.
    public func instance(near utc: Double, atOrAfter: Bool, localOffset: Int) -> Double? {
        // Without a count the repeats never end: the search reaches as far as `utc` needs (a
        // 10 s period begun years ago is millions of repeats in).
        var last = repeats ?? 1
        if repeats == nil {
            while last < 1 << 40, instance(last, today: utc, localOffset: localOffset) < utc { last *= 2 }
        }
        if atOrAfter && instance(last, today: utc, localOffset: localOffset) < utc { return nil }
        if !atOrAfter && instance(0, today: utc, localOffset: localOffset) > utc { return nil }
        // Instances grow with k: the smallest k at or after `utc`, by halving.
        var low = 0, high = last
        while low < high {
            let mid = low + (high - low) / 2
            if instance(mid, today: utc, localOffset: localOffset) >= utc { high = mid } else { low = mid + 1 }
        }
        let found = instance(low, today: utc, localOffset: localOffset)
        if atOrAfter || found == utc { return found }
        return low == 0 ? nil : instance(low - 1, today: utc, localOffset: localOffset)
    }
}

/// The proleptic Gregorian calendar in days since 1970-01-01 (H. Hinnant's algorithms).
enum Civil {
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func date(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// ISO weekday: 1 Monday … 7 Sunday.
    static func weekday(_ days: Int) -> Int { ((days % 7 + 7) % 7 + 3) % 7 + 1 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The same day of the month `months` later (the month's last day where it is shorter).
    static func adding(months: Int, to days: Int) -> Int {
        guard months != 0 else { return days }
        let (y, m, d) = date(days)
        let total = y * 12 + (m - 1) + months
        let year = total / 12, month = total % 12 + 1
        return Self.days(year: year, month: month, day: min(d, daysIn(month: month, year: year)))
    }
}
