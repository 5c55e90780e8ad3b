/// A TOML 1.0 document's values, as plain Swift values: nothing is held outside Swift's own memory,
/// so a document read again and again (a configuration reloaded for months) leaves nothing behind.
public enum TOMLValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// A date, a time or both, as written (`1979-05-27T07:32:00Z`, `07:32:00`).
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    /// An integer that fits an `Int`.
    public var int: Int? {
        if case .integer(let i) = self { return Int(exactly: i) }
        return nil
    }

    /// A float (an integer is not one: `number` in a reader decides whether it may be).
    public var double: Double? {
        if case .float(let d) = self { return d }
        return nil
    }

    public var array: [TOMLValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var table: TOMLTable? {
        if case .table(let t) = self { return t }
        return nil
    }

    /// The TOML name of the value's type, for messages ("must be a string, not integer").
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .dateTime(let d): d.kind.rawValue
        case .array: "array"
        case .table: "table"
        }
    }
}

/// A date-time value, kept as its text and its kind.
public struct TOMLDateTime: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case offsetDateTime = "offset date-time"
        case localDateTime = "local date-time"
        case localDate = "local date"
        case localTime = "local time"
    }

    public var kind: Kind
    /// As written, with a `T` between date and time.
    public var text: String

    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    public var description: String { text }
}

/// A table: its keys in the order the document wrote them.
public struct TOMLTable: Sendable, Hashable {
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]

    public init() {}

    public subscript(key: String) -> TOMLValue? {
        get { values[key] }
        set {
            guard let newValue else {
                if values.removeValue(forKey: key) != nil { keys.removeAll { $0 == key } }
                return
            }
            if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
        }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool { a.values == b.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

/// Why a document is not TOML, and where: the line and column (from 1) of the first fault.
public struct TOMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "\(line):\(column): \(reason)" }
}
