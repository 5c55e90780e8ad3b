extension Reader {
    static let containers: [String: SMILDocument.Node.Kind] = ["seq": .seq, "par": .par, "excl": .excl]
    static let media: Set<String> = ["img", "video", "audio", "brush", "text", "ref", "animation", "textstream"]

    /// `e` as a node under `parent` (with its own children), or left out with a warning.
    mutating func node(_ e: MarkupElement, parent: Int) {
        guard let kind = kind(of: e, parent: parent), holds(e), let timing = timing(e) else { return }
        let index = document.nodes.count
        document.nodes.append(
            .init(
                kind: kind, id: e.attributes["xml:id"] ?? e.attributes["id"], name: e.name, parent: parent,
                timing: timing, line: e.line, column: e.column))
        document.nodes[parent].children.append(index)
        switch kind {
        case .seq, .par, .excl, .priorityClass:
            for child in e.children { node(child, parent: index) }
        case .media, .prefetch:
            for child in e.children where child.name != "param" {
                warn("'\(child.name)' inside '\(e.name)' is not supported; ignored", at: child)
            }
        }
    }

    /// What `e` is, where Upright plays it.
    mutating func kind(of e: MarkupElement, parent: Int) -> SMILDocument.Node.Kind? {
        let inExcl = document.nodes[parent].kind == .excl
        if let container = Self.containers[e.name] { return container }
        switch e.name {
        case "priorityClass":
            guard inExcl else {
                warn("'priorityClass' is allowed only directly in an 'excl'; ignored", at: e)
                return nil
            }
            return .priorityClass(priorityClass(e))
        case "prefetch":
            guard let src = e.attributes["src"], !src.isEmpty else {
                warn("'prefetch' has no 'src'; ignored", at: e)
                return nil
            }
            return .prefetch(substituted(src))
        case _ where Self.media.contains(e.name): return media(e)
        case "param": return nil
        default:
            warn("'\(e.name)' is not supported; ignored", at: e)
            return nil
        }
    }

    mutating func media(_ e: MarkupElement) -> SMILDocument.Node.Kind? {
        let kind: SMILDocument.Media.Kind
        switch e.name {
        case "img": kind = .img
        case "video": kind = .video
        case "audio": kind = .audio
        case "brush": kind = .brush
        case "text", "textstream": kind = .text
        case "ref": kind = .ref
        default:
            warn("'\(e.name)' is not supported; ignored", at: e)
            return nil
        }
        var m = SMILDocument.Media(kind: kind, src: substituted(e.attributes["src"] ?? ""))
        if kind == .brush {
            guard let c = Self.color(e.attributes["color"] ?? "") else {
                warn("the brush's color '\(e.attributes["color"] ?? "")' is not a colour; ignored", at: e)
                return nil
            }
            m.color = c
        } else if m.src.isEmpty {
            warn("'\(e.name)' has no 'src'; ignored", at: e)
            return nil
        } else if m.src.contains("{") && m.src.contains("}") {
            warn("'\(m.src)' names no entry of the index's state; '\(e.name)' ignored", at: e)
            return nil
        }
        m.type = e.attributes["type"]
        if let f = e.attributes["fit"] { m.fit = fit(f, at: e) }
        if let r = e.attributes["region"] {
            let regions = document.layout.regions
            m.region = regions.firstIndex { $0.name == r } ?? regions.firstIndex { $0.id == r }
            if m.region == nil { warn("no region is named '\(r)'; '\(e.name)' plays in the whole layout", at: e) }
        }
        return .media(m)
    }

    mutating func priorityClass(_ e: MarkupElement) -> SMILDocument.PriorityClass {
        var p = SMILDocument.PriorityClass()
        // `peer` is a spelling some CMSes write for `peers`.
        if let v = e.attributes["peers"] ?? e.attributes["peer"] {
            if let x = SMILDocument.PriorityClass.Peers(rawValue: v) { p.peers = x } else { bad("peers", v, at: e) }
        }
        if let v = e.attributes["higher"] {
            if let x = SMILDocument.PriorityClass.Higher(rawValue: v) { p.higher = x } else { bad("higher", v, at: e) }
        }
        if let v = e.attributes["lower"] {
            if let x = SMILDocument.PriorityClass.Lower(rawValue: v) { p.lower = x } else { bad("lower", v, at: e) }
        }
        return p
    }

    mutating func bad(_ attribute: String, _ value: String, at e: MarkupElement) {
        warn("\(attribute)='\(value)' is not a value of '\(attribute)'; the default taken", at: e)
    }

    /// Whether `e`'s conditions hold: `expr` and `systemComponent` are taken as false, with why.
    mutating func holds(_ e: MarkupElement) -> Bool {
        if let expr = e.attributes["expr"] {
            warn("expr=\"\(expr)\" is taken as false: Upright evaluates no expressions; '\(e.name)' left out", at: e)
            return false
        }
        if let component = e.attributes["systemComponent"] {
            warn("systemComponent='\(component)' is taken as false; '\(e.name)' left out", at: e)
            return false
        }
        return true
    }
}
