extension Reader {
    /// `<layout>`: the `root-layout`'s size and the regions, nested ones placed within their parent.
    mutating func layout(_ e: MarkupElement) {
        if let type = e.attributes["type"], type != "text/smil-basic-layout" {
            warn("the layout type '\(type)' is not supported; ignored", at: e)
            return
        }
        if let root = e.children.first(where: { $0.name == "root-layout" }) {
            document.layout.backgroundColor = color(root)
            for (key, keyPath) in [("width", \SMILDocument.Layout.width), ("height", \.height)] {
                if let v = root.attributes[key] {
                    if let px = Self.length(v, of: 0), px > 0, px <= 100_000 {
                        document.layout[keyPath: keyPath] = px
                    } else {
                        warn(
                            "the root layout's \(key) '\(v)' is not a length in pixels; \(Int(document.layout[keyPath: keyPath])) taken",
                            at: root)
                    }
                }
            }
        }
        let frame = (left: 0.0, top: 0.0, width: document.layout.width, height: document.layout.height)
        for r in e.children where r.name != "root-layout" {
            if r.name == "region" {
                region(r, in: frame, zIndex: 0)
            } else {
                warn("'\(r.name)' in the layout is not supported; ignored", at: r)
            }
        }
    }

    mutating func region(
        _ e: MarkupElement, in frame: (left: Double, top: Double, width: Double, height: Double), zIndex: Int
    ) {
        let id = e.attributes["xml:id"] ?? e.attributes["id"]
        guard let name = e.attributes["regionName"] ?? id else {
            warn("a region without 'regionName' or 'xml:id' cannot be named by media; ignored", at: e)
            return
        }
        guard let h = axis(e, "left", "width", "right", frame.width),
            let v = axis(e, "top", "height", "bottom", frame.height)
        else { return }
        var z = zIndex
        if let text = e.attributes["z-index"] {
            if let n = Int(text), abs(n) < 1_000_000 {
                z = n
            } else {
                warn("z-index '\(text)' is not a whole number; \(zIndex) taken", at: e)
            }
        }
        var fit: SMILDocument.Fit?
        if let f = e.attributes["fit"] { fit = self.fit(f, at: e) }
        if e.attributes["backgroundImage"] != nil {
            warn("the region '\(name)''s backgroundImage is not supported; its backgroundColor shows", at: e)
        }
        let box = (frame.left + h.start, frame.top + v.start, h.size, v.size)
        document.layout.regions.append(
            .init(
                name: name, id: id, left: box.0, top: box.1, width: box.2, height: box.3, zIndex: z,
                backgroundColor: color(e), fit: fit))
        for child in e.children where child.name == "region" { region(child, in: box, zIndex: z) }
    }

    /// A region's place on one axis: from two of start, size and end, in pixels or percent.
    mutating func axis(_ e: MarkupElement, _ startKey: String, _ sizeKey: String, _ endKey: String, _ whole: Double)
        -> (start: Double, size: Double)?
    {
        var values: [String: Double] = [:]
        for key in [startKey, sizeKey, endKey] {
            guard let text = e.attributes[key], text != "auto" else { continue }
            guard let v = Self.length(text, of: whole) else {
                warn("the region's \(key) '\(text)' is not a length (pixels or percent); ignored", at: e)
                return nil
            }
            values[key] = v
        }
        let start = values[startKey] ?? values[endKey].map { whole - $0 - (values[sizeKey] ?? 0) } ?? 0
        let size = values[sizeKey] ?? (whole - start - (values[endKey] ?? 0))
        guard size > 0, start.isFinite, size.isFinite, abs(start) <= 100_000, size <= 100_000 else {
            warn("the region has no area on its \(sizeKey); ignored", at: e)
            return nil
        }
        return (start, size)
    }

    /// `1920`, `1920px` or `50%` of `whole`.
    static func length(_ text: String, of whole: Double) -> Double? {
        let t = Substring(text).trimmingWhitespace()
        if t.hasSuffix("%") { return ClockValue.number(t.dropLast(), fraction: true).map { $0 / 100 * whole } }
        let digits = t.hasSuffix("px") ? t.dropLast(2) : t
        if digits.hasPrefix("-") { return ClockValue.number(digits.dropFirst(), fraction: true).map { -$0 } }
        return ClockValue.number(digits, fraction: true)
    }

    /// `backgroundColor` (or the older `background-color`), where it is a colour mpv can show.
    mutating func color(_ e: MarkupElement) -> String? {
        guard let text = e.attributes["backgroundColor"] ?? e.attributes["background-color"] else { return nil }
        if let c = Self.color(text) { return c }
        warn("the colour '\(text)' is not '#rgb', '#rrggbb' or a colour's name; black taken", at: e)
        return nil
    }

    /// A colour as `#rrggbb`: `#rgb`, `#rrggbb`, `transparent`, or one of CSS's basic colour names.
    static func color(_ text: String) -> String? {
        let t = Substring(text).trimmingWhitespace().lowercased()
        if let named = basicColors[t] { return named }
        guard t.hasPrefix("#"), t.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        let hex = t.dropFirst()
        if hex.count == 3 { return "#" + hex.map { "\($0)\($0)" }.joined() }
        return hex.count == 6 ? t : nil
    }

    static let basicColors: [String: String] = [
        "black": "#000000", "silver": "#c0c0c0", "gray": "#808080", "grey": "#808080", "white": "#ffffff",
        "maroon": "#800000", "red": "#ff0000", "purple": "#800080", "fuchsia": "#ff00ff", "magenta": "#ff00ff",
        "green": "#008000", "lime": "#00ff00", "olive": "#808000", "yellow": "#ffff00", "navy": "#000080",
        "blue": "#0000ff", "teal": "#008080", "aqua": "#00ffff", "cyan": "#00ffff", "orange": "#ffa500",
        "pink": "#ffc0cb", "transparent": "transparent",
    ]

    mutating func fit(_ text: String, at e: MarkupElement) -> SMILDocument.Fit? {
        if let f = SMILDocument.Fit(rawValue: text.lowercased()) { return f }
        warn("fit '\(text)' is not one of fill, meet, meetBest, slice, hidden, scroll; ignored", at: e)
        return nil
    }
}
