public import Diagnostics

extension SMILDocument {
    /// The index in `bytes`, named `file` in its diagnostics. A malformed index, or one with no
    /// `<smil>` root or no `<body>`, is refused as a whole; an element Upright does not play is
    /// left out with a warning at its place, and the rest of the index plays.
    public static func read(_ bytes: [UInt8], file: String) -> Result<SMILDocument, Diagnostic> {
        switch XMLTree.read(bytes, file: file) {
        case .failure(let problem): return .failure(problem)
        case .success(let root):
            var reader = Reader(file: file)
            return reader.document(root)
        }
    }
}

/// The walk from XML elements to the document, collecting diagnostics.
struct Reader {
    let file: String
    var document: SMILDocument
    var substitutions: [String: String] = [:]

    init(file: String) {
        self.file = file
        document = SMILDocument(file: file, layout: .init(), nodes: [], diagnostics: [])
    }

    mutating func warn(_ message: String, at e: MarkupElement) {
        document.diagnostics.append(
            Diagnostic(file: file, line: e.line, column: e.column, severity: .warning, message: message))
    }

    func error(_ message: String, at e: MarkupElement?) -> Diagnostic {
        Diagnostic(file: file, line: e?.line, column: e?.column, severity: .error, message: message)
    }

    mutating func document(_ root: MarkupElement) -> Result<SMILDocument, Diagnostic> {
        guard root.name == "smil" else {
            return .failure(error("the root element is '\(root.name)', not 'smil'", at: root))
        }
        if let head = root.children.first(where: { $0.name == "head" }) { self.head(head) }
        guard let body = root.children.first(where: { $0.name == "body" }) else {
            return .failure(error("the index has no 'body'", at: root))
        }
        for other in root.children where other.name != "head" && other.name != "body" {
            warn("'\(other.name)' is not part of a SMIL document; ignored", at: other)
        }
        document.nodes.append(
            .init(
                kind: .seq, id: body.attributes["xml:id"] ?? body.attributes["id"], name: "body", parent: nil,
                timing: timing(body) ?? .init(), line: body.line, column: body.column))
        for child in body.children { node(child, parent: 0) }
        return .success(document)
    }

    // MARK: head

    mutating func head(_ head: MarkupElement) {
        for e in head.children {
            switch e.name {
            case "meta": meta(e)
            case "layout": layout(e)
            case "state": state(e)
            case "metadata": break
            default: warn("'\(e.name)' in the head is not supported; ignored", at: e)
            }
        }
    }

    mutating func meta(_ e: MarkupElement) {
        if e.attributes["http-equiv"]?.lowercased() == "refresh" {
            let content = e.attributes["content"] ?? ""
            if let seconds = ClockValue.seconds(Substring(content)), seconds > 0 {
                document.refresh = max(seconds, 1)
            } else {
                warn("the refresh interval '\(content)' is not a number of seconds; the index is not read again", at: e)
            }
        } else if e.attributes["name"] == "title" {
            document.title = e.attributes["content"]
        }
    }

    /// `<state><data><url001>…</url001></data></state>`: each entry's name in braces, in a
    /// media's `src`, is the entry's text.
    mutating func state(_ e: MarkupElement) {
        for data in e.children where data.name == "data" {
            for entry in data.children where !entry.text.isEmpty {
                substitutions["{" + entry.name + "}"] = entry.text
            }
        }
    }

    func substituted(_ src: String) -> String {
        guard src.contains("{") else { return src }
        var out = src
        for (key, value) in substitutions where out.contains(key) {
            out = out.replacing(key, with: value)
        }
        return out
    }
}
