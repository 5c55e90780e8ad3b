/// JSON as RFC 8259 writes it, checked before a line is decoded: Foundation's decoder lets a
/// trailing comma through and keeps the last of a repeated key, so `{"command": "status",}`
/// would be answered and `{"command": "status", "command": "lock"}` would lock.
public enum StrictJSON {
    /// What is wrong with a text, and where (1-based, in characters).
    public struct Problem: Error, Equatable, CustomStringConvertible, Sendable {
        public var what: String
        public var column: Int
        public var description: String { "\(what) at column \(column)" }
    }

    /// The first departure from RFC 8259 in `text`, or `nil` when it is one JSON value: no
    /// trailing commas, comments, single quotes, bare words or text after the value, and no key
    /// twice in one object (keys compared after their escapes are read).
    public static func problem(in text: String) -> Problem? {
        var reader = Reader(bytes: Array(text.utf8))
        do {
            reader.skipSpace()
            try reader.value(depth: 0)
            reader.skipSpace()
            if reader.at < reader.bytes.count { throw reader.fail("\(reader.found) after the JSON value") }
            return nil
        } catch let failure as Reader.Failure {
            let prefix = reader.bytes[..<min(failure.offset, reader.bytes.count)]
            return Problem(what: failure.what, column: String(decoding: prefix, as: UTF8.self).count + 1)
        } catch {
            return Problem(what: "\(error)", column: 1)
        }
    }

    private struct Reader {
        struct Failure: Error {
            var what: String
            var offset: Int
        }

        let bytes: [UInt8]
        var at = 0
        /// Deeper than this is refused rather than followed (a line of brackets).
        static let maxDepth = 64

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ what: String) -> Failure { Failure(what: what, offset: at) }

        var next: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while let b = next, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
        }

        /// What stands at the reader, named for an error.
        var found: String {
            guard let b = next else { return "the end of the line" }
            switch b {
            case UInt8(ascii: "/"): return "a comment (JSON has none)"
            case UInt8(ascii: "'"): return "a single quote (JSON strings take double quotes)"
            default:
                let end = bytes[at...].firstIndex { !(0x21...0x7E).contains($0) || "{}[],:\"".utf8.contains($0) }
                let word = String(decoding: bytes[at..<max(end ?? bytes.count, at + 1)], as: UTF8.self)
                return "'\(word.prefix(20))'"
            }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < Self.maxDepth else { throw fail("more than \(Self.maxDepth) levels of nesting") }
            guard let b = next else { throw fail("\(found) where a value belongs") }
            switch b {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try word("true")
            case UInt8(ascii: "f"): try word("false")
            case UInt8(ascii: "n"): try word("null")
            default: throw fail("\(found) where a value belongs")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            var keys: Set<String> = []
            try members(closedBy: UInt8(ascii: "}")) { r throws(Failure) in
                guard r.next == UInt8(ascii: "\"") else { throw r.fail("\(r.found) where a key belongs") }
                let start = r.at
                let key = try r.string()
                guard keys.insert(key).inserted else {
                    throw Failure(what: "the key \"\(key)\" a second time (each key may appear once)", offset: start)
                }
                r.skipSpace()
                guard r.next == UInt8(ascii: ":") else { throw r.fail("\(r.found) where ':' belongs") }
                r.at += 1
                r.skipSpace()
                try r.value(depth: depth + 1)
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            try members(closedBy: UInt8(ascii: "]")) { r throws(Failure) in try r.value(depth: depth + 1) }
        }

        /// An object's or array's members, from its opening bracket to `close`: none, or each read
        /// by `member` and separated by commas, with none before the closing bracket.
        mutating func members(closedBy close: UInt8, _ member: (inout Reader) throws(Failure) -> Void)
            throws(Failure)
        {
            let bracket = String(decoding: [close], as: UTF8.self)
            at += 1
            skipSpace()
            if next == close {
                at += 1
                return
            }
            while true {
                if next == close { throw fail("a comma before '\(bracket)'") }
                try member(&self)
                skipSpace()
                switch next {
                case UInt8(ascii: ","):
                    at += 1
                    skipSpace()
                case close:
                    at += 1
                    return
                default: throw fail("\(found) where ',' or '\(bracket)' belongs")
                }
            }
        }

        /// A string from its opening quote, its escapes read (for comparing keys).
        mutating func string() throws(Failure) -> String {
            at += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard let b = next else { throw fail("a string that does not end") }
                switch b {
                case UInt8(ascii: "\""):
                    at += 1
                    flush()
                    return String(scalars)
                case 0..<0x20: throw fail("a control character inside a string (escape it)")
                case UInt8(ascii: "\\"):
                    flush()
                    at += 1
                    scalars.append(try escape())
                default:
                    raw.append(b)
                    at += 1
                }
            }
        }

        /// The escape after a backslash; a `\u` pair of surrogates is one character.
        mutating func escape() throws(Failure) -> Unicode.Scalar {
            guard let b = next else { throw fail("a string that does not end") }
            at += 1
            switch b {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if (0xD800..<0xDC00).contains(unit), bytes[at...].starts(with: Array("\\u".utf8)) {
                    let mark = at
                    at += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                    }
                    at = mark
                }
                return Unicode.Scalar(unit) ?? "\u{FFFD}"
            default:
                at -= 1
                throw fail(
                    "the escape '\\\(String(decoding: [b], as: UTF8.self))' (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"
                )
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
            else { throw fail("'\\u' without four hexadecimal digits") }
            at += 4
            return v
        }

        mutating func number() throws(Failure) {
            let start = at
            if next == UInt8(ascii: "-") { at += 1 }
            func digits() -> Int {
                let from = at
                while let b = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { at += 1 }
                return at - from
            }
            let leadingZero = next == UInt8(ascii: "0")
            let whole = digits()
            guard whole > 0, !(leadingZero && whole > 1) else {
                at = start
                throw fail("the number \(found) (JSON numbers have no leading zeros, '+', or bare '.')")
            }
            if next == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw fail("a number with no digits after its '.'") }
            }
            if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                at += 1
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw fail("a number with no digits in its exponent") }
            }
        }

        mutating func word(_ w: String) throws(Failure) {
            guard bytes[at...].starts(with: Array(w.utf8)) else { throw fail("\(found) where a value belongs") }
            at += w.utf8.count
        }
    }
}
