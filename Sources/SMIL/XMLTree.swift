public import Diagnostics
import Foundation
import FoundationXML

/// An XML element as read: its name, attributes, text and children, and the place of its `<`.
public struct MarkupElement: Sendable, Hashable {
    public var name: String
    public var attributes: [String: String]
    public var children: [MarkupElement]
    /// The character data directly inside, trimmed (a `<data>` entry's URL, a `<text>`'s words).
    public var text: String
    public var line: Int
    public var column: Int
}

/// XML read by libxml2 (FoundationXML's parser) into elements with their places, bounded:
/// at most ``maxBytes`` bytes, ``maxElements`` elements and ``maxDepth`` levels. External
/// entities are never resolved; libxml2 bounds the expansion of internal ones.
public enum XMLTree {
    public static let maxBytes = 4 << 20
    public static let maxElements = 50_000
    public static let maxDepth = 64

    /// The document's root element, or the first problem with its place.
    public static func read(_ original: [UInt8], file: String) -> Result<MarkupElement, Diagnostic> {
        guard original.contains(where: { !Character(Unicode.Scalar($0)).isWhitespace }) else {
            return .failure(
                Diagnostic(file: file, line: nil, column: nil, severity: .error, message: "the index is empty"))
        }
        guard original.count <= maxBytes else {
            return .failure(
                Diagnostic(
                    file: file, line: nil, column: nil, severity: .error,
                    message: "the index is \(original.count) bytes; at most \(maxBytes) are read"))
        }
        let bytes: [UInt8]
        switch utf8(original, file: file) {
        case .success(let b): bytes = b
        case .failure(let problem): return .failure(problem)
        }
        let builder = Builder(bytes: bytes, file: file)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = builder
        _ = parser.parse()
        if let problem = builder.problem { return .failure(problem) }
        guard let root = builder.root else {
            return .failure(builder.error("the index holds no element", line: nil, column: nil))
        }
        return .success(root)
    }

    /// The index as UTF-8 with no encoding named for libxml2: an index in UTF-8 (or US-ASCII)
    /// has its declaration's `encoding="…"` blanked (places in the text stay), one in ISO 8859-1
    /// is made UTF-8 first, and any other is refused. libxml2 2.9.14, as FoundationXML drives it,
    /// crashes on some encoding names it cannot switch to (`encoding="us"`).
    static func utf8(_ bytes: [UInt8], file: String) -> Result<[UInt8], Diagnostic> {
        var bytes = bytes
        let prefix = Array("<?xml".utf8)
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if bytes[start...].starts(with: prefix), let end = firstIndex(of: Array("?>".utf8), in: bytes, from: start),
            let name = firstIndex(of: Array("encoding".utf8), in: Array(bytes[..<end]), from: start)
        {
            var i = name + 8
            while i < end, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "'") { i += 1 }
            let quote = i < end ? bytes[i] : 0
            let close = i + 1 < end ? bytes[(i + 1)..<end].firstIndex(of: quote) : nil
            let value = close.map { String(decoding: bytes[(i + 1)..<$0], as: UTF8.self).lowercased() } ?? ""
            let latin1 = ["iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1"].contains(value)
            guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(value) || latin1, let close else {
                return .failure(
                    Diagnostic(
                        file: file, line: 1, column: name + 1 - start, severity: .error,
                        message: "the index's encoding '\(value)' is not UTF-8, US-ASCII or ISO-8859-1"))
            }
            for k in name...close { bytes[k] = UInt8(ascii: " ") }
            if latin1 { bytes = Array(String(bytes.map { Character(Unicode.Scalar($0)) }).utf8) }
        }
        if let bad = invalidUTF8(bytes) {
            let line = 1 + bytes[..<bad].filter { $0 == UInt8(ascii: "\n") }.count
            return .failure(
                Diagnostic(
                    file: file, line: line, column: nil, severity: .error,
                    message: "the index is not UTF-8 text (and names no encoding Upright reads)"))
        }
        return .success(bytes)
    }

    /// Where the first byte that is not UTF-8 is; `nil` when all are.
    static func invalidUTF8(_ bytes: [UInt8]) -> Int? {
        struct Counting: IteratorProtocol {
            var base: IndexingIterator<[UInt8]>
            var taken = 0
            mutating func next() -> UInt8? {
                taken += 1
                return base.next()
            }
        }
        var it = Counting(base: bytes.makeIterator())
        var decoder = UTF8()
        while true {
            let before = it.taken
            switch decoder.decode(&it) {
            case .scalarValue: continue
            case .emptyInput: return nil
            case .error: return before
            }
        }
    }

    static func firstIndex(of needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        return (from...(hay.count - needle.count)).first { hay[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The delegate that builds the tree; one parse, on one thread.
    private final class Builder: NSObject, XMLParserDelegate {
        let lines: [Int]
        let bytes: [UInt8]
        let file: String
        var stack: [MarkupElement] = []
        var root: MarkupElement?
        var problem: Diagnostic?
        var count = 0

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
            var starts = [0]
            for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
            lines = starts
        }

        func error(_ message: String, line: Int?, column: Int?) -> Diagnostic {
            Diagnostic(file: file, line: line, column: column, severity: .error, message: message)
        }

        /// The place of the `<` that opened the tag libxml2 has just read (it reports where the
        /// tag ended; an attribute's value cannot hold a `<`).
        func tagStart(_ parser: XMLParser) -> (line: Int, column: Int) {
            let line = max(1, min(parser.lineNumber, lines.count))
            var offset = min(bytes.count, lines[line - 1] + max(0, parser.columnNumber - 1))
            offset = min(offset, bytes.count - 1)
            while offset > 0 && bytes[offset] != UInt8(ascii: "<") { offset -= 1 }
            let found = (lines.lastIndex { $0 <= offset } ?? 0)
            return (found + 1, offset - lines[found] + 1)
        }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            count += 1
            let at = tagStart(parser)
            if count > XMLTree.maxElements || stack.count >= XMLTree.maxDepth {
                problem = error(
                    count > XMLTree.maxElements
                        ? "more than \(XMLTree.maxElements) elements" : "elements nested over \(XMLTree.maxDepth) deep",
                    line: at.line, column: at.column)
                parser.abortParsing()
                return
            }
            stack.append(
                MarkupElement(
                    name: name, attributes: attributes, children: [], text: "", line: at.line, column: at.column))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty, stack[stack.count - 1].text.utf8.count < 65_536 else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard var done = stack.popLast() else { return }
            done.text = done.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            guard problem == nil else { return }
            let line = parser.lineNumber, column = parser.columnNumber
            var message = Self.words(parseError)
            if let open = stack.last {
                message += " ('\(open.name)' opened at \(open.line):\(open.column) is not closed)"
            }
            problem = error("malformed XML: " + message, line: line, column: column)
            parser.abortParsing()
        }

        /// libxml2's error, in words.
        static func words(_ error: any Error) -> String {
            let code = (error as NSError).code
            return XMLErrors.words[code] ?? "libxml2 error \(code)"
        }
    }
}
