extension TOMLTable {
    /// Reads a TOML 1.0 document; the first fault throws with its line, column and reason.
    public init(parsing text: String) throws(TOMLError) {
        var parser = TOMLParser(Array(text.utf8))
        self = try parser.document()
    }
}

/// A table while the document is read: how it came to be decides what may still be added to it.
private final class TableBuilder {
    enum Origin {
        /// Made on the way to a header further down (`[a]` of `[a.b]`): a header may still define it.
        case implicit
        /// Defined by its own header.
        case header
        /// Made by a dotted key (`a.b = 1`): only more dotted keys may add to it.
        case dotted
        /// An inline table, or one inside it: closed.
        case inline
    }

    enum Entry {
        case value(TOMLValue)
        case table(TableBuilder)
        /// Made by `[[name]]` headers, one table each (a list shared, so that each header appends
        /// in constant time).
        case tables(TableList)
    }

    final class TableList {
        var items: [TableBuilder]
        init(_ items: [TableBuilder]) { self.items = items }
    }

    var origin: Origin
    var keys: [String] = []
    var entries: [String: Entry] = [:]

    init(_ origin: Origin) { self.origin = origin }

    subscript(key: String) -> Entry? {
        get { entries[key] }
        set {
            if entries.updateValue(newValue!, forKey: key) == nil { keys.append(key) }
        }
    }

    func close() {
        origin = .inline
        for entry in entries.values {
            if case .table(let t) = entry { t.close() }
        }
    }

    var value: TOMLTable {
        var t = TOMLTable()
        for key in keys {
            switch entries[key]! {
            case .value(let v): t[key] = v
            case .table(let b): t[key] = .table(b.value)
            case .tables(let list): t[key] = .array(list.items.map { .table($0.value) })
            }
        }
        return t
    }
}

/// A recursive-descent reader over the document's UTF-8 bytes. Its recursion is bounded: arrays
/// and inline tables nest at most ``maxNesting`` deep, a key has at most ``maxKeyParts`` parts,
/// so a hostile document ends in an error, never in a stack overflow.
private struct TOMLParser {
    let bytes: [UInt8]
    var i = 0
    /// How deep the value being read is in arrays and inline tables.
    var nesting = 0
    static let maxNesting = 32
    static let maxKeyParts = 16

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A byte-order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    // MARK: - Bytes

    var atEnd: Bool { i >= bytes.count }
    var current: UInt8? { i < bytes.count ? bytes[i] : nil }
    func peek(_ offset: Int) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }

    func looking(at text: String) -> Bool {
        let t = Array(text.utf8)
        return i + t.count <= bytes.count && bytes[i..<(i + t.count)].elementsEqual(t)
    }

    func fail(_ reason: String, at position: Int? = nil) -> TOMLError {
        let at = min(position ?? i, bytes.count)
        var line = 1
        var start = 0
        for j in 0..<at where bytes[j] == 0x0A {
            line += 1
            start = j + 1
        }
        // Columns count characters, not bytes: a UTF-8 continuation byte starts none.
        let column = bytes[start..<at].filter { $0 & 0xC0 != 0x80 }.count + 1
        return TOMLError(line: line, column: column, reason: reason)
    }

    /// What stands at the cursor, for "expected …, found …".
    var found: String {
        guard let c = current else { return "the end of the document" }
        switch c {
        case 0x0A, 0x0D: return "the end of the line"
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        default:
            var end = i + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return String(decoding: bytes[i..<end], as: UTF8.self).unicodeScalars.first.map {
                $0.properties.generalCategory == .control ? "a control character (U+\(hex($0.value)))" : "'\($0)'"
            } ?? "a byte that is not text"
        }
    }

    mutating func skipSpaces() {
        while let c = current, c == 0x20 || c == 0x09 { i += 1 }
    }

    /// A comment to the end of its line (not the line's end).
    mutating func skipComment() throws(TOMLError) {
        guard current == UInt8(ascii: "#") else { return }
        i += 1
        while let c = current, c != 0x0A {
            if c == 0x0D, peek(1) == 0x0A { return }
            if isControl(c) { throw fail("a control character (U+\(hex(UInt32(c)))) in a comment") }
            i += 1
        }
    }

    /// A line's end: LF or CRLF; true when one was there.
    mutating func newline() -> Bool {
        if current == 0x0A {
            i += 1
            return true
        }
        if current == 0x0D, peek(1) == 0x0A {
            i += 2
            return true
        }
        return false
    }

    /// Spaces, comments and line ends, as between an array's values.
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            if !newline() { return }
        }
    }

    /// After a key/value pair or a header: nothing but a comment before the line ends.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        try skipComment()
        if atEnd || newline() { return }
        throw fail("expected the end of the line after \(what), found \(found)")
    }

    // MARK: - The document

    mutating func document() throws(TOMLError) -> TOMLTable {
        let root = TableBuilder(.header)
        var table = root
        var scope: [String] = []
        while true {
            try skipBlank()
            guard let c = current else { break }
            if c == UInt8(ascii: "[") {
                let start = i
                if peek(1) == UInt8(ascii: "[") {
                    i += 2
                    let path = try headerKey(closing: "]]")
                    table = try appendTable(root, path, at: start)
                    scope = path
                    try endOfLine(after: "the header [[\(dotted(path))]]")
                } else {
                    i += 1
                    let path = try headerKey(closing: "]")
                    table = try defineTable(root, path, at: start)
                    scope = path
                    try endOfLine(after: "the header [\(dotted(path))]")
                }
            } else {
                try keyValue(into: table, scope: scope)
                try endOfLine(after: "a value")
            }
        }
        return root.value
    }

    mutating func headerKey(closing: String) throws(TOMLError) -> [String] {
        skipSpaces()
        let path = try key()
        skipSpaces()
        guard looking(at: closing) else {
            throw fail("expected '\(closing)' to close the table header, found \(found)")
        }
        i += closing.utf8.count
        return path
    }

    /// `[a.b.c]`: the table at the path, made or opened; a table is defined once.
    mutating func defineTable(_ root: TableBuilder, _ path: [String], at start: Int) throws(TOMLError)
        -> TableBuilder
    {
        let parent = try walk(root, Array(path.dropLast()), header: path, at: start)
        let last = path.last!
        switch parent[last] {
        case nil:
            let t = TableBuilder(.header)
            parent[last] = .table(t)
            return t
        case .table(let t) where t.origin == .implicit:
            t.origin = .header
            return t
        case .table(let t):
            throw fail(
                t.origin == .header
                    ? "the table [\(dotted(path))] is defined twice"
                    : "the table \(dotted(path)) was already defined by \(t.origin == .dotted ? "dotted keys" : "an inline table")",
                at: start)
        case .tables:
            throw fail("[\(dotted(path))] is already an array of tables ([[\(dotted(path))]])", at: start)
        case .value:
            throw fail("'\(dotted(path))' is already a value, not a table", at: start)
        }
    }

    /// `[[a.b]]`: a new table at the end of the array at the path.
    mutating func appendTable(_ root: TableBuilder, _ path: [String], at start: Int) throws(TOMLError)
        -> TableBuilder
    {
        let parent = try walk(root, Array(path.dropLast()), header: path, at: start)
        let last = path.last!
        let t = TableBuilder(.header)
        switch parent[last] {
        case nil: parent[last] = .tables(TableBuilder.TableList([t]))
        case .tables(let list): list.items.append(t)
        case .table:
            throw fail("[[\(dotted(path))]]: '\(dotted(path))' is already a table, not an array of tables", at: start)
        case .value:
            throw fail(
                "[[\(dotted(path))]]: '\(dotted(path))' is already a value (an array written inline cannot grow)",
                at: start)
        }
        return t
    }

    /// The tables on a header's way, made where missing; an array of tables stands for its last.
    func walk(_ root: TableBuilder, _ path: [String], header: [String], at start: Int) throws(TOMLError)
        -> TableBuilder
    {
        var table = root
        for (n, key) in path.enumerated() {
            switch table[key] {
            case nil:
                let t = TableBuilder(.implicit)
                table[key] = .table(t)
                table = t
            case .table(let t):
                guard t.origin != .inline else {
                    throw fail("'\(dotted(path.prefix(n + 1)))' is an inline table: it cannot be added to", at: start)
                }
                table = t
            case .tables(let list):
                table = list.items.last!
            case .value:
                throw fail(
                    "'\(dotted(path.prefix(n + 1)))' is already a value, so [\(dotted(header))] cannot be in it",
                    at: start)
            }
        }
        return table
    }

    /// `key = value`, the key dotted or not, into `table`; `scope` is the header's path, for messages.
    mutating func keyValue(into table: TableBuilder, scope: [String]) throws(TOMLError) {
        let start = i
        let path = try key()
        skipSpaces()
        guard current == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key '\(dotted(path))', found \(found)")
        }
        i += 1
        skipSpaces()
        let v = try value()
        var t = table
        for (n, key) in path.dropLast().enumerated() {
            switch t[key] {
            case nil:
                let made = TableBuilder(.dotted)
                t[key] = .table(made)
                t = made
            case .table(let inner) where inner.origin == .dotted:
                t = inner
            default:
                throw fail(
                    "'\(dotted(scope + path.prefix(n + 1)))' is already defined, so dotted keys cannot add to it",
                    at: start)
            }
        }
        let last = path.last!
        guard t[last] == nil else { throw fail("'\(dotted(scope + path))' is defined twice", at: start) }
        switch v {
        case .table(let b): t[last] = .table(b)
        case .value(let v): t[last] = .value(v)
        }
    }

    // MARK: - Keys

    /// A key: bare or quoted parts joined by dots.
    mutating func key() throws(TOMLError) -> [String] {
        var parts = [try simpleKey()]
        while true {
            let save = i
            skipSpaces()
            guard current == UInt8(ascii: ".") else {
                i = save
                return parts
            }
            i += 1
            skipSpaces()
            parts.append(try simpleKey())
            if parts.count > Self.maxKeyParts {
                throw fail("a key has more than \(Self.maxKeyParts) dotted parts")
            }
        }
    }

    mutating func simpleKey() throws(TOMLError) -> String {
        switch current {
        case UInt8(ascii: "\""):
            if looking(at: "\"\"\"") { throw fail("a key cannot be a multi-line string") }
            return try basicString()
        case UInt8(ascii: "'"):
            if looking(at: "'''") { throw fail("a key cannot be a multi-line string") }
            return try literalString()
        case let c? where isBareKey(c):
            let start = i
            while let c = current, isBareKey(c) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        default:
            throw fail("expected a key (letters, digits, '_' and '-', or a quoted string), found \(found)")
        }
    }

    // MARK: - Values

    /// A value, or an inline table still to be placed (so that its tables stay closed).
    enum Parsed {
        case value(TOMLValue)
        case table(TableBuilder)
    }

    mutating func value() throws(TOMLError) -> Parsed {
        guard let c = current else { throw fail("expected a value, found the end of the document") }
        if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
            guard nesting < Self.maxNesting else {
                throw fail("arrays and inline tables nest more than \(Self.maxNesting) deep")
            }
            nesting += 1
        }
        defer { if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") { nesting -= 1 } }
        switch c {
        case UInt8(ascii: "\""):
            return .value(.string(looking(at: "\"\"\"") ? try multilineString(UInt8(ascii: "\"")) : try basicString()))
        case UInt8(ascii: "'"):
            return .value(.string(looking(at: "'''") ? try multilineString(UInt8(ascii: "'")) : try literalString()))
        case UInt8(ascii: "["):
            return .value(try array())
        case UInt8(ascii: "{"):
            return .table(try inlineTable())
        case UInt8(ascii: "t") where looking(at: "true"), UInt8(ascii: "f") where looking(at: "false"):
            let word = c == UInt8(ascii: "t") ? "true" : "false"
            i += word.utf8.count
            if let n = current, isBareKey(n) {
                throw fail("expected a value, found '\(word)\(Character(Unicode.Scalar(n)))…'", at: i - word.utf8.count)
            }
            return .value(.boolean(word == "true"))
        case let c
        where isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: "i")
            || c == UInt8(ascii: "n"):
            return .value(try numberOrDate())
        default:
            throw fail("expected a value (a string, number, boolean, date, array or inline table), found \(found)")
        }
    }

    mutating func array() throws(TOMLError) -> TOMLValue {
        let start = i
        i += 1
        var out: [TOMLValue] = []
        while true {
            try skipBlank()
            if current == UInt8(ascii: "]") {
                i += 1
                return .array(out)
            }
            if atEnd { throw fail("the array opened here is never closed with ']'", at: start) }
            switch try value() {
            case .value(let v): out.append(v)
            case .table(let t): out.append(.table(t.value))
            }
            try skipBlank()
            if current == UInt8(ascii: ",") {
                i += 1
            } else if current != UInt8(ascii: "]") {
                throw fail("expected ',' or ']' in the array, found \(found)")
            }
        }
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no comma after the last pair; closed once read.
    mutating func inlineTable() throws(TOMLError) -> TableBuilder {
        i += 1
        let table = TableBuilder(.inline)
        skipSpaces()
        if current == UInt8(ascii: "}") {
            i += 1
            return table
        }
        while true {
            skipSpaces()
            guard let c = current, c != 0x0A, c != 0x0D else {
                throw fail("an inline table must be on one line: expected a key, found \(found)")
            }
            try keyValue(into: table, scope: [])
            skipSpaces()
            if current == UInt8(ascii: ",") {
                i += 1
                skipSpaces()
                if current == UInt8(ascii: "}") { throw fail("an inline table has no ',' after its last pair") }
            } else if current == UInt8(ascii: "}") {
                i += 1
                table.close()
                return table
            } else {
                throw fail("expected ',' or '}' in the inline table, found \(found)")
            }
        }
    }

    // MARK: - Strings

    mutating func basicString() throws(TOMLError) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = current, c != 0x0A, c != 0x0D || peek(1) != 0x0A else {
                throw fail("the string opened here is never closed with '\"' on its line", at: start)
            }
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            default:
                if isControl(c) {
                    throw fail("a control character (U+\(hex(UInt32(c)))) in a string; write it escaped")
                }
                out.append(c)
                i += 1
            }
        }
    }

    /// `"""…"""` (escapes, and a backslash at a line's end) or `'''…'''` (as written), by `quote`;
    /// the line end right after the opening quotes is not part of it.
    mutating func multilineString(_ quote: UInt8) throws(TOMLError) -> String {
        let basic = quote == UInt8(ascii: "\"")
        let start = i
        i += 3
        _ = newline()
        var out: [UInt8] = []
        while true {
            guard let c = current else {
                throw fail(
                    "the multi-line string opened here is never closed with "
                        + (basic ? "'\"\"\"'" : "\"'''\""), at: start)
            }
            if c == quote {
                if try quotes(c, into: &out) { return String(decoding: out, as: UTF8.self) }
            } else if basic, c == UInt8(ascii: "\\") {
                // A backslash at a line's end takes the line end and the blanks after it away.
                var j = i + 1
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
                if j < bytes.count,
                    bytes[j] == 0x0A || (bytes[j] == 0x0D && j + 1 < bytes.count && bytes[j + 1] == 0x0A)
                {
                    i = j
                    while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || (b == 0x0D && peek(1) == 0x0A) {
                        i += 1
                    }
                } else {
                    try escape(into: &out)
                }
            } else if newline() {
                out.append(0x0A)
            } else {
                if isControl(c) {
                    throw fail(
                        "a control character (U+\(hex(UInt32(c)))) in a "
                            + (basic ? "string; write it escaped" : "literal string"))
                }
                out.append(c)
                i += 1
            }
        }
    }

    /// A run of `quote` in a multi-line string: three or more close it (up to two before them are
    /// the string's own: whether it closed is the answer), fewer are the string's.
    mutating func quotes(_ quote: UInt8, into out: inout [UInt8]) throws(TOMLError) -> Bool {
        var count = 0
        while peek(count) == quote { count += 1 }
        let closes = count >= 3
        if closes, count > 5 {
            throw fail("too many \(quote == UInt8(ascii: "'") ? "\"'\"" : "'\"'") at the end of a multi-line string")
        }
        out += Array(repeating: quote, count: closes ? count - 3 : count)
        i += count
        return closes
    }

    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = i
        i += 1
        guard let c = current else { throw fail("a '\\' at the end of the document") }
        i += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "t"): 0x09, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "f"): 0x0C,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C,
        ]
        if let s = simple[c] {
            out.append(s)
            return
        }
        guard c == UInt8(ascii: "u") || c == UInt8(ascii: "U") else {
            throw fail(
                "unknown escape '\\\(Character(Unicode.Scalar(c)))'; expected \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX",
                at: start)
        }
        let count = c == UInt8(ascii: "u") ? 4 : 8
        guard i + count <= bytes.count,
            let code = UInt32(String(decoding: bytes[i..<(i + count)], as: UTF8.self), radix: 16),
            bytes[i..<(i + count)].allSatisfy(isHexDigit)
        else { throw fail("'\\\(Character(Unicode.Scalar(c)))' needs \(count) hexadecimal digits", at: start) }
        guard let scalar = Unicode.Scalar(code) else {
            throw fail("'\\\(Character(Unicode.Scalar(c)))\(hex(code))' is not a Unicode scalar value", at: start)
        }
        i += count
        out += Array(String(Character(scalar)).utf8)
    }

    mutating func literalString() throws(TOMLError) -> String {
        let start = i
        i += 1
        let from = i
        while true {
            guard let c = current, c != 0x0A, c != 0x0D || peek(1) != 0x0A else {
                throw fail("the string opened here is never closed with \"'\" on its line", at: start)
            }
            if c == UInt8(ascii: "'") {
                i += 1
                return String(decoding: bytes[from..<(i - 1)], as: UTF8.self)
            }
            if isControl(c) { throw fail("a control character (U+\(hex(UInt32(c)))) in a literal string") }
            i += 1
        }
    }

    // MARK: - Numbers and dates

    /// The run of characters a number, date or time is made of, from the cursor.
    mutating func scalarToken() -> String {
        let from = i
        while let c = current,
            isBareKey(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
        {
            i += 1
        }
        return String(decoding: bytes[from..<i], as: UTF8.self)
    }

    mutating func numberOrDate() throws(TOMLError) -> TOMLValue {
        let start = i
        var token = scalarToken()
        // A date and a time may stand apart: `1979-05-27 07:32:00`.
        if token.utf8.count == 10, isDate(token), current == 0x20, let d = peek(1), isDigit(d), let e = peek(2),
            isDigit(e), peek(3) == UInt8(ascii: ":")
        {
            i += 1
            token += "T" + scalarToken()
        }
        if let value = TOMLScalars.value(of: token) { return value }
        throw fail(TOMLScalars.whyNot(token), at: start)
    }
}

/// Numbers, dates and times, as their text reads.
enum TOMLScalars {
    static func value(of token: String) -> TOMLValue? {
        switch token {
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        let b = Array(token.utf8)
        if b.count > 2, b[0] == UInt8(ascii: "0"),
            let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][b[1]]
        {
            let digits = Array(b[2...])
            guard underscoresBetweenDigits(digits, radix: radix) else { return nil }
            return Int64(String(decoding: digits.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self), radix: radix)
                .map(TOMLValue.integer)
        }
        if let d = dateTime(token) { return .dateTime(d) }
        return decimal(b)
    }

    static func whyNot(_ token: String) -> String {
        let b = Array(token.utf8)
        if b.contains(UInt8(ascii: ":"))
            || (b.count >= 5 && b.prefix(4).allSatisfy(isDigit) && b[4] == UInt8(ascii: "-"))
        {
            return "'\(token)' is not a valid date or time (such as 1979-05-27, 07:32:00 or 1979-05-27T07:32:00Z)"
        }
        if b.count > 2, b[0] == UInt8(ascii: "0"),
            [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(b[1])
        {
            return "'\(token)' is not a valid integer (or it does not fit 64 bits)"
        }
        let unsigned = b.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
        if unsigned.count > 1, unsigned.first == UInt8(ascii: "0"), unsigned.allSatisfy(isDigit) {
            return "'\(token)' has a leading zero (write \(Int(token) ?? 0))"
        }
        if unsigned.count > 1, unsigned.first != UInt8(ascii: "0"), underscoresBetweenDigits(Array(unsigned), radix: 10)
        {
            return "'\(token)' does not fit a 64-bit integer"
        }
        if b.contains(where: { isDigit($0) }) {
            return
                "'\(token)' is not a valid number (no leading zeros, '_' only between digits, a digit on each side of '.')"
        }
        return "expected a value (a string, number, boolean, date, array or inline table), found '\(token)'"
    }

    static func underscoresBetweenDigits(_ digits: [UInt8], radix: Int) -> Bool {
        guard let first = digits.first, let last = digits.last, first != UInt8(ascii: "_"), last != UInt8(ascii: "_")
        else { return false }
        for (n, c) in digits.enumerated() {
            if c == UInt8(ascii: "_") {
                if digits[n - 1] == UInt8(ascii: "_") { return false }
            } else if Int(String(Character(Unicode.Scalar(c))), radix: radix) == nil {
                return false
            }
        }
        return true
    }

    /// A decimal integer or a float: `+1_000`, `-0.5`, `6.626e-34`.
    static func decimal(_ b: [UInt8]) -> TOMLValue? {
        var body = b[...]
        if let s = body.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { body = body.dropFirst() }
        let exponentAt = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[..<(exponentAt ?? body.endIndex)]
        let pointAt = mantissa.firstIndex(of: UInt8(ascii: "."))
        let whole = Array(mantissa[..<(pointAt ?? mantissa.endIndex)])
        guard underscoresBetweenDigits(whole, radix: 10) else { return nil }
        // No leading zeros: `0`, `0.5` and `0e1`, never `01`.
        if whole.count > 1, whole[0] == UInt8(ascii: "0") { return nil }
        if let p = pointAt {
            guard underscoresBetweenDigits(Array(mantissa[(p + 1)...]), radix: 10) else { return nil }
        }
        if let e = exponentAt {
            var exponent = body[(e + 1)...]
            if let s = exponent.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
                exponent = exponent.dropFirst()
            }
            guard underscoresBetweenDigits(Array(exponent), radix: 10) else { return nil }
        }
        let text = String(decoding: b.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if pointAt == nil, exponentAt == nil { return Int64(text).map(TOMLValue.integer) }
        return Double(text).map(TOMLValue.float)
    }

    /// `YYYY-MM-DD`, `HH:MM:SS[.frac]`, or both with an offset (`Z`, `+05:30`) or none.
    static func dateTime(_ token: String) -> TOMLDateTime? {
        var text = token
        if let t = text.firstIndex(where: { $0 == "t" || $0 == "T" }), text.distance(from: text.startIndex, to: t) == 10
        {
            text.replaceSubrange(t...t, with: "T")
        }
        if isDate(text), text.utf8.count == 10 { return TOMLDateTime(kind: .localDate, text: text) }
        if isTime(text[...]) { return TOMLDateTime(kind: .localTime, text: text) }
        guard text.utf8.count > 11, isDate(String(text.prefix(10))), text.dropFirst(10).first == "T" else { return nil }
        var time = text.dropFirst(11)
        var kind = TOMLDateTime.Kind.localDateTime
        if time.last == "z" || time.last == "Z" {
            time = time.dropLast()
            kind = .offsetDateTime
            text = String(text.dropLast()) + "Z"
        } else if time.count > 6, let sign = time.dropLast(5).last, sign == "+" || sign == "-" {
            let offset = time.suffix(5)
            guard isDigits(offset.prefix(2)), offset.dropFirst(2).first == ":", isDigits(offset.suffix(2)),
                let h = Int(offset.prefix(2)), let m = Int(offset.suffix(2)), h < 24, m < 60
            else { return nil }
            time = time.dropLast(6)
            kind = .offsetDateTime
        }
        return isTime(time) ? TOMLDateTime(kind: kind, text: text) : nil
    }

    static func isDigits(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy(isDigit) }

    static func isTime(_ s: Substring) -> Bool {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 2, parts[1].count == 2, isDigits(parts[0]), isDigits(parts[1]),
            let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60
        else { return false }
        let seconds = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard seconds[0].count == 2, isDigits(seconds[0]), let sec = Int(seconds[0]), sec <= 60 else { return false }
        return seconds.count == 1 || (seconds.count == 2 && isDigits(seconds[1]))
    }
}

func isDate(_ s: String) -> Bool {
    let parts = s.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
        parts.allSatisfy(TOMLScalars.isDigits), let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
        (1...12).contains(m)
    else { return false }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    return (1...days).contains(d)
}

private func dotted<C: Collection<String>>(_ path: C) -> String {
    path.map { key in
        key.isEmpty || !key.utf8.allSatisfy(isBareKey) ? "\"\(key)\"" : key
    }.joined(separator: ".")
}

private func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
private func isHexDigit(_ c: UInt8) -> Bool {
    isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
        || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
}
func isBareKey(_ c: UInt8) -> Bool {
    isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
        || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
        || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
}
/// Control characters TOML allows nowhere unescaped (a tab is allowed).
private func isControl(_ c: UInt8) -> Bool { (c < 0x20 && c != 0x09) || c == 0x7F }
