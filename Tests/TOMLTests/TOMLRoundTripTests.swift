import Foundation
import PropertyBased
import TOML
import Testing

/// Random documents, written in every style TOML allows (headers, implicit tables, dotted keys,
/// inline tables, arrays of tables; quoted keys; four kinds of string; four bases of integer),
/// read back to the values they were written from, and read the same by Python's `tomllib`.
struct TOMLRoundTripTests {
    static let programs = Gen.int(in: 0...999_999).array(of: 40...400)

    @Test func aWrittenDocumentReadsBackToItsValues() async {
        await propertyCheck(count: 400, input: Self.programs) { program in
            var g = Dice(program)
            let table = g.table(depth: 0)
            var writer = Writer(dice: g)
            let text = writer.document(table)
            do {
                let read = try TOMLTable(parsing: text)
                #expect(read == table, "\(text)")
            } catch {
                Issue.record("\(error) in:\n\(text)")
            }
        }
    }

    /// The same documents, and each with one byte taken out or doubled: accepted or refused as
    /// `tomllib` does, and when accepted, to the same values.
    @Test func agreesWithPythonsReader() throws {
        var documents: [String] = []
        var seed = SplitMix(7)
        for _ in 0..<600 {
            var g = Dice((0..<300).map { _ in Int(seed.next() % 1_000_000) })
            let table = g.table(depth: 0)
            var writer = Writer(dice: g)
            let text = writer.document(table)
            documents.append(text)
            var bytes = Array(text.utf8)
            guard !bytes.isEmpty else { continue }
            let at = Int(seed.next() % UInt64(bytes.count))
            if seed.next() % 2 == 0 { bytes.remove(at: at) } else { bytes.insert(bytes[at], at: at) }
            if let mutated = String(validating: bytes, as: UTF8.self) { documents.append(mutated) }
        }
        let answers = try python(documents)
        #expect(answers.count == documents.count)
        // Both kinds are there to agree on: documents read and documents refused.
        #expect(answers.filter { $0 == "error" }.count > 100 && answers.filter { $0 != "error" }.count > 600)
        var disagreements: [String] = []
        for (text, answer) in zip(documents, answers) {
            let ours: String
            do {
                ours = tagged(.table(try TOMLTable(parsing: text)))
            } catch {
                ours = "error"
            }
            if ours != answer { disagreements.append("ours: \(ours)\ntomllib: \(answer)\nfor:\n\(text)") }
        }
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) of \(documents.count):\n\(disagreements.prefix(3).joined(separator: "\n---\n"))")
    }

    /// `tomllib`'s reading of each document, tagged as `tagged` writes ours; "error" when it refuses.
    func python(_ documents: [String]) throws -> [String] {
        let script = #"""
            import json, math, sys, tomllib, datetime
            def tag(v):
                if isinstance(v, bool): return "b:" + ("true" if v else "false")
                if isinstance(v, int):
                    # TOML's integers are 64-bit; tomllib reads any size.
                    if not -2**63 <= v < 2**63: raise OverflowError
                    return "i:" + str(v)
                if isinstance(v, float):
                    if math.isnan(v): return "f:nan"
                    return "f:" + repr(v)
                if isinstance(v, str): return "s:" + json.dumps(v, ensure_ascii=True)
                if isinstance(v, (datetime.datetime, datetime.date, datetime.time)): return "d"
                if isinstance(v, list): return "[" + ",".join(tag(x) for x in v) + "]"
                return "{" + ",".join(json.dumps(k, ensure_ascii=True) + "=" + tag(v[k]) for k in sorted(v)) + "}"
            for doc in json.load(sys.stdin):
                try:
                    print(tag(tomllib.loads(doc)))
                except (tomllib.TOMLDecodeError, OverflowError):
                    print("error")
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let json = try JSONSerialization.data(withJSONObject: documents)
        // Written from another thread: the answers may fill the pipe before the documents are all in.
        let writer = Thread {
            input.fileHandleForWriting.write(json)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func tagged(_ v: TOMLValue) -> String {
        switch v {
        case .boolean(let b): return "b:\(b)"
        case .integer(let i): return "i:\(i)"
        case .float(let d): return d.isNaN ? "f:nan" : "f:" + pythonRepr(d)
        case .string(let s): return "s:" + jsonASCII(s)
        case .dateTime: return "d"
        case .array(let a): return "[" + a.map(tagged).joined(separator: ",") + "]"
        case .table(let t):
            // Python sorts by code point; so does this.
            let keys = t.keys.sorted {
                Array($0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.unicodeScalars.map(\.value))
            }
            return "{" + keys.map { jsonASCII($0) + "=" + tagged(t[$0]!) }.joined(separator: ",") + "}"
        }
    }

    func pythonRepr(_ d: Double) -> String {
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        var s = "\(d)"
        // Swift writes 5e+22 and 1e-05 as Python does, but 1e+16 where Python writes 1e+16 too.
        if s.hasSuffix(".0"), abs(d) >= 1e16 { s = String(format: "%g", d) }
        return s
    }

    func jsonASCII(_ s: String) -> String {
        var out = "\""
        for u in s.utf16 {
            switch u {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.append(Character(Unicode.Scalar(u)!))
            default: out += String(format: "\\u%04x", u)
            }
        }
        return out + "\""
    }
}

/// A stream of numbers read as choices: the same numbers make the same document.
struct Dice {
    var numbers: [Int]
    var next = 0

    init(_ numbers: [Int]) { self.numbers = numbers }

    mutating func roll(_ n: Int) -> Int {
        defer { next += 1 }
        return numbers.isEmpty ? 0 : numbers[next % numbers.count] % n
    }

    static let keys = [
        "a", "b", "key", "b-c", "x_1", "1", "2024", "with space", "é", "", "dot.ted", "quo\"te", "tab\t",
    ]
    static let strings = [
        "", "plain", "it's", "say \"hi\"", "back\\slash", "line\nbreak", "tab\there", "é ☃ 😀", "\u{1}", "'''", "\"\"\"",
        "a\"", "a'",
    ]

    mutating func table(depth: Int) -> TOMLTable {
        var t = TOMLTable()
        for _ in 0..<roll(depth == 0 ? 6 : 4) {
            let key = Self.keys[roll(Self.keys.count)]
            guard t[key] == nil else { continue }
            t[key] = value(depth: depth)
        }
        return t
    }

    mutating func value(depth: Int) -> TOMLValue {
        switch roll(depth < 3 ? 9 : 6) {
        case 0: return .string(Self.strings[roll(Self.strings.count)])
        case 1: return .integer([0, 1, -1, 42, 1_000_000, Int64.max, Int64.min, 255][roll(8)])
        case 2: return .float([0, 1.5, -0.25, 5e22, 6.626e-34, .infinity, -.infinity, 100][roll(8)])
        case 3: return .boolean(roll(2) == 0)
        case 4: return .string(Self.strings[roll(Self.strings.count)] + Self.strings[roll(Self.strings.count)])
        case 5: return .integer(Int64(roll(100_000)) - 50_000)
        case 6: return .array((0..<roll(4)).map { _ in value(depth: depth + 1) })
        case 7: return .array((0..<(1 + roll(3))).map { _ in .table(table(depth: depth + 1)) })
        default: return .table(table(depth: depth + 1))
        }
    }
}

/// Writes a table as a document, choosing each time how to write it.
struct Writer {
    var dice: Dice
    var lines: [String] = []

    init(dice: Dice) { self.dice = dice }

    mutating func document(_ t: TOMLTable) -> String {
        section(t, path: [], header: nil)
        return lines.joined(separator: dice.roll(4) == 0 ? "\r\n" : "\n") + (dice.roll(2) == 0 ? "\n" : "")
    }

    /// A table's own lines under `header` (none for the root), then its tables written as sections.
    mutating func section(_ t: TOMLTable, path: [String], header: String?) {
        var sections: [(String, TOMLValue)] = []
        var own: [String] = []
        for key in t.keys {
            let v = t[key]!
            if case .table(let inner) = v, dice.roll(3) == 0 {
                own += dotted(inner, prefix: [key])
            } else if isSection(v), dice.roll(2) == 0 {
                sections.append((key, v))
            } else {
                own.append(self.key(key) + spaces() + "=" + spaces() + inline(v) + comment())
            }
        }
        // A table with nothing of its own and only tables below may go unwritten: they make it.
        if let header,
            header.hasPrefix("[[")
                || !(own.isEmpty && !sections.isEmpty && sections.allSatisfy({ $0.1.table != nil })
                    && dice.roll(2) == 0)
        {
            lines.append(header + comment())
        }
        lines += own
        if dice.roll(3) == 0 { lines.append("") }
        for (key, v) in sections {
            let inner = path + [key]
            switch v {
            case .table(let sub): section(sub, path: inner, header: "[" + spaces() + dottedKey(inner) + spaces() + "]")
            case .array(let list):
                for element in list { section(element.table!, path: inner, header: "[[" + dottedKey(inner) + "]]") }
            default: break
            }
        }
    }

    func isSection(_ v: TOMLValue) -> Bool {
        switch v {
        case .table: true
        case .array(let a): !a.isEmpty && a.allSatisfy { $0.table != nil }
        default: false
        }
    }

    /// `prefix.key = value` lines for a table written by dotted keys (an empty one stays inline).
    mutating func dotted(_ t: TOMLTable, prefix: [String]) -> [String] {
        if t.isEmpty { return [dottedKey(prefix) + " = {}"] }
        var out: [String] = []
        for key in t.keys {
            if case .table(let inner) = t[key]!, dice.roll(2) == 0 {
                out += dotted(inner, prefix: prefix + [key])
            } else {
                out.append(dottedKey(prefix + [key]) + spaces() + "=" + spaces() + inline(t[key]!))
            }
        }
        return out
    }

    mutating func inline(_ v: TOMLValue) -> String {
        switch v {
        case .string(let s): return string(s)
        case .integer(let i): return integer(i)
        case .float(let d): return d.isInfinite ? (d < 0 ? "-inf" : ["inf", "+inf"][dice.roll(2)]) : "\(d)"
        case .boolean(let b): return "\(b)"
        case .dateTime(let d): return d.text
        case .array(let a):
            if a.isEmpty { return "[" + spaces() + "]" }
            let multiline = dice.roll(2) == 0
            var parts: [String] = []
            for e in a { parts.append(inline(e)) }
            if multiline {
                return "[\n" + parts.map { "  " + $0 + "," + comment() }.joined(separator: "\n") + "\n]"
            }
            return "[" + parts.joined(separator: "," + spaces()) + (dice.roll(2) == 0 ? "," : "") + "]"
        case .table(let t):
            if t.isEmpty { return "{" + spaces() + "}" }
            var parts: [String] = []
            for key in t.keys { parts.append(self.key(key) + " = " + inline(t[key]!)) }
            return "{ " + parts.joined(separator: ", ") + " }"
        }
    }

    mutating func integer(_ i: Int64) -> String {
        switch dice.roll(5) {
        case 1 where i >= 0: return "0x" + String(i, radix: 16, uppercase: dice.roll(2) == 0)
        case 2 where i >= 0: return "0o" + String(i, radix: 8)
        case 3 where i >= 0: return "0b" + String(i, radix: 2)
        case 4 where i.magnitude >= 1000:
            // Underscores between groups of digits.
            let digits = Array(String(i.magnitude))
            var out = ""
            for (n, c) in digits.enumerated() {
                if n > 0, (digits.count - n) % 3 == 0 { out += "_" }
                out.append(c)
            }
            return (i < 0 ? "-" : "") + out
        default: return (i > 0 && dice.roll(4) == 0 ? "+" : "") + "\(i)"
        }
    }

    mutating func string(_ s: String) -> String {
        let controls = s.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
        switch dice.roll(4) {
        case 0 where !controls && !s.contains("'") && !s.contains("\n"): return "'" + s + "'"
        case 1 where !controls && !s.contains("'''") && !s.hasSuffix("'"):
            return "'''" + (s.hasPrefix("\n") || dice.roll(2) == 0 ? "\n" : "") + s + "'''"
        case 2:
            var body = ""
            for c in s.unicodeScalars {
                switch c {
                case "\\": body += "\\\\"
                case "\"": body += "\\\""
                case "\n": body += "\n"
                default:
                    body +=
                        c.value < 0x20 && c != "\t" || c.value == 0x7F ? String(format: "\\u%04X", c.value) : String(c)
                }
            }
            return "\"\"\"" + (s.hasPrefix("\n") || dice.roll(2) == 0 ? "\n" : "") + body + "\"\"\""
        default: return basic(s)
        }
    }

    func basic(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    out += String(format: "\\U%08X", c.value)
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    mutating func key(_ k: String) -> String {
        let bare =
            !k.isEmpty
            && k.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            }
        if bare, dice.roll(4) != 0 { return k }
        if !k.contains("'"), !k.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }), dice.roll(2) == 0 {
            return "'" + k + "'"
        }
        return basic(k)
    }

    mutating func dottedKey(_ path: [String]) -> String {
        var parts: [String] = []
        for k in path { parts.append(key(k)) }
        return parts.joined(separator: dice.roll(3) == 0 ? " . " : ".")
    }

    mutating func spaces() -> String { ["", " ", "  ", "\t"][dice.roll(4)] }
    mutating func comment() -> String { dice.roll(4) == 0 ? " # a note: \"quoted\" 'too' ]" : "" }
}

/// A small seeded generator, so that the differential run is the same every time.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
