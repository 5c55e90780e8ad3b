/// One value of a `begin` or `end` list (SMIL 3.0 §5.4.4).
public enum TimeValue: Sendable, Hashable {
    /// Seconds from the syncbase: the parent's begin (`par`, `excl`), the previous child's end (`seq`).
    case offset(Double)
    /// Another element's begin or end, plus an offset (`intro.end+5s`).
    case syncbase(id: String, end: Bool, offset: Double)
    /// An event, plus an offset: `intro.endEvent`, `button.activateEvent`, `accesskey(w)`, `notify(name)`.
    case event(Event, offset: Double)
    case wallclock(Wallclock)
    case indefinite

    public enum Event: Sendable, Hashable {
        /// `beginEvent`, `endEvent`, `repeatEvent` or `activateEvent` of the element `id`.
        case element(id: String, name: String)
        case accesskey(String)
        case notify(String)
    }
}

/// SMIL's clock values and `begin`/`end` lists, read.
public enum ClockValue {
    /// Seconds in a clock value: `hh:mm:ss[.f]`, `mm:ss[.f]`, or a number with `h`, `min`, `s`
    /// or `ms` (seconds when none); `nil` when it is none of these.
    public static func seconds(_ text: Substring) -> Double? {
        let t = text.trimmingWhitespace()
        guard !t.isEmpty else { return nil }
        if t.contains(":") {
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3 else { return nil }
            var total = 0.0
            for (i, part) in parts.enumerated() {
                let last = i == parts.count - 1
                guard let v = number(part, fraction: last), i == 0 || v < 60 else { return nil }
                total = total * 60 + v
            }
            return total
        }
        for (unit, scale) in [("ms", 0.001), ("min", 60.0), ("h", 3600.0), ("s", 1.0)] where t.hasSuffix(unit) {
            return number(t.dropLast(unit.count), fraction: true).map { $0 * scale }
        }
        return number(t, fraction: true)
    }

    /// Digits, with a fraction where allowed; at most 10 digits before the point.
    static func number(_ s: Substring, fraction: Bool) -> Double? {
        let whole = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let head = whole.first, !head.isEmpty, head.count <= 10, head.allSatisfy(\.isASCIIDigit) else {
            return nil
        }
        if whole.count == 2 {
            guard fraction, !whole[1].isEmpty, whole[1].count <= 9, whole[1].allSatisfy(\.isASCIIDigit) else {
                return nil
            }
        }
        return Double(s)
    }

    /// A signed clock value (`+5s`, `-1.5s`).
    static func signed(_ text: Substring) -> Double? {
        let t = text.trimmingWhitespace()
        if t.hasPrefix("+") { return seconds(t.dropFirst()) }
        if t.hasPrefix("-") { return seconds(t.dropFirst()).map { -$0 } }
        return seconds(t)
    }

    /// A `begin` or `end` list: values separated by `;` (empty ones skipped), or why one is not a value.
    public static func list(_ text: String) -> Result<[TimeValue], ValueProblem> {
        var values: [TimeValue] = []
        for raw in text.split(separator: ";") {
            let item = raw.trimmingWhitespace()
            guard !item.isEmpty else { continue }
            guard let value = value(item) else { return .failure(ValueProblem(text: String(item))) }
            values.append(value)
        }
        return .success(values)
    }

    public struct ValueProblem: Error, Sendable, Hashable {
        public var text: String
    }

    /// One value of a list.
    static func value(_ t: Substring) -> TimeValue? {
        if t == "indefinite" { return .indefinite }
        if let s = signed(t) { return .offset(s) }
        if t.hasPrefix("wallclock("), t.hasSuffix(")") {
            return Wallclock(t.dropFirst(10).dropLast()).map(TimeValue.wallclock)
        }
        let (head, offset) = splitOffset(t)
        for (prefix, make) in [("accesskey(", TimeValue.Event.accesskey), ("notify(", TimeValue.Event.notify)]
        where head.hasPrefix(prefix) && head.hasSuffix(")") {
            let name = head.dropFirst(prefix.count).dropLast()
            return name.isEmpty ? nil : .event(make(String(name)), offset: offset)
        }
        guard let dot = head.lastIndex(of: "."), dot != head.startIndex else { return nil }
        let id = String(head[..<dot]), what = head[head.index(after: dot)...]
        guard isName(id), isName(String(what)) else { return nil }
        switch what {
        case "begin": return .syncbase(id: id, end: false, offset: offset)
        case "end": return .syncbase(id: id, end: true, offset: offset)
        default: return .event(.element(id: id, name: String(what)), offset: offset)
        }
    }

    /// `head+5s` as `("head", 5)`; a value with no offset (or a `-` inside a name, as in
    /// `my-clip.end`) is itself with 0.
    static func splitOffset(_ t: Substring) -> (Substring, Double) {
        if let sign = t.lastIndex(where: { $0 == "+" || $0 == "-" }), sign != t.startIndex,
            let offset = signed(t[sign...])
        {
            return (t[..<sign].trimmingWhitespace(), offset)
        }
        return (t, 0)
    }

    /// An XML name as SMIL uses it for ids and event names.
    static func isName(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        return s.allSatisfy { $0.isLetter || $0.isNumber || "_-:".contains($0) }
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
