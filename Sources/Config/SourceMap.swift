/// Where tables, keys and values stand in TOML text. The TOML reader reports positions for syntax errors
/// only, so semantic errors find their place here: a light scan of table headers and `key =` lines.
struct SourceMap {
    struct Place: Hashable {
        var line: Int
        var column: Int
    }

    private(set) var tables: [String: Place] = [:]
    private(set) var keys: [String: Place] = [:]
    private(set) var values: [String: Place] = [:]
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var table: [String] = []
        for (i, raw) in lines.enumerated() {
            let line = raw.last == "\r" ? raw.dropLast() : raw
            let body = line.drop { $0 == " " || $0 == "\t" }
            let indent = line.count - body.count
            if body.hasPrefix("[") {
                let inner = body.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.split(inner)
                tables[table.joined(separator: ".")] = Place(line: i + 1, column: indent + 1)
                continue
            }
            guard let eq = body.firstIndex(of: "="), !body.hasPrefix("#") else { continue }
            let keyText = body[..<eq]
            guard keyText.allSatisfy({ $0.isLetter || $0.isNumber || "_-.\"' ".contains($0) }),
                !keyText.trimmingSpaces.isEmpty
            else { continue }
            let path = (table + Self.split(keyText)).joined(separator: ".")
            keys[path] = Place(line: i + 1, column: indent + 1)
            let afterEq = body[body.index(after: eq)...]
            let valueOffset =
                body.distance(from: body.startIndex, to: eq) + 1
                + afterEq.prefix { $0 == " " || $0 == "\t" }.count
            values[path] = Place(line: i + 1, column: indent + valueOffset + 1)
        }
    }

    /// The place of a key (`scenes.fullscreen.preferred`), else of its table, else nothing.
    func place(of path: [String]) -> Place? {
        let joined = path.joined(separator: ".")
        if let p = keys[joined] { return p }
        var prefix = path
        while !prefix.isEmpty {
            if let p = tables[prefix.joined(separator: ".")] { return p }
            prefix.removeLast()
        }
        return nil
    }

    /// The place of a key's value.
    func valuePlace(of path: [String]) -> Place? { values[path.joined(separator: ".")] ?? place(of: path) }

    /// The place of the quoted string `element` inside the value of `path` (an array may span lines).
    func elementPlace(of path: [String], element: String) -> Place? {
        guard let start = values[path.joined(separator: ".")] else { return place(of: path) }
        for lineIndex in (start.line - 1)..<min(lines.count, start.line + 50) {
            let line = lines[lineIndex]
            let from = lineIndex == start.line - 1 ? start.column - 1 : 0
            let text = String(line.dropFirst(from))
            for quote in ["\"", "'"] {
                if let r = text.range(of: quote + element + quote) {
                    return Place(
                        line: lineIndex + 1, column: from + text.distance(from: text.startIndex, to: r.lowerBound) + 1)
                }
            }
            if lineIndex > start.line - 1, text.contains("=") { break }
        }
        return start
    }

    private static func split(_ key: Substring) -> [String] {
        key.split(separator: ".").map { part in
            var s = part.trimmingSpaces
            if s.count >= 2, let f = s.first, f == "\"" || f == "'", s.last == f {
                s = String(s.dropFirst().dropLast())
            }
            return s
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
