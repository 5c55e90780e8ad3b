import OrientationCore

/// A text zone: the words of a `text` element's file, drawn by mpv's OSD (`osd-overlay`, ASS)
/// inside its zone, turned with the picture.
public enum ZoneText {
    /// At most this much of a text file is shown (the rest is cut, with `…`).
    public static let maxCharacters = 2000

    /// The ASS event that draws `text` in `zone` (window pixels) on `canvas`: from the zone's top
    /// left as the viewer sees it, clipped to the zone, in a size that fits its lines in its
    /// height, white on a dark outline.
    public static func ass(_ text: String, in zone: Zone, on canvas: Canvas) -> String {
        var words = String(text.prefix(maxCharacters))
        if text.count > maxCharacters { words += "…" }
        let lines = words.split(separator: "\n", omittingEmptySubsequences: false).prefix(40)
        let turned = canvas.angle % 180 != 0
        let viewerHeight = Double(turned ? zone.width : zone.height)
        let viewerWidth = Double(turned ? zone.height : zone.width)
        // Its lines fit the height, and (a character being about 0.55 of the size wide) the
        // longest fits the width.
        let longest = Double(max(1, lines.map(\.count).max() ?? 1))
        let fitting = min(viewerHeight / Double(max(1, lines.count)) * 0.75, viewerWidth / (longest * 0.55))
        let size = max(8, min(200, Int(fitting)))
        // The viewer's top-left corner of the zone, in the window.
        let corner: (Int, Int) =
            switch canvas.angle {
            case 90: (zone.x + zone.width, zone.y)
            case 180: (zone.x + zone.width, zone.y + zone.height)
            case 270: (zone.x, zone.y + zone.height)
            default: (zone.x, zone.y)
            }
        let clip = "\(zone.x),\(zone.y),\(zone.x + zone.width),\(zone.y + zone.height)"
        // Tabs and carriage returns as spaces; the lines joined by `\N`.
        let escaped = ASSText.escaped(
            String(lines.joined(separator: "\n").map { $0 == "\r" || $0 == "\t" ? " " : $0 }))
        return
            "{\\an7\\pos(\(corner.0),\(corner.1))\\clip(\(clip))\\frz\(-canvas.angle)\\fs\(size)\\c&HFFFFFF&\\bord2}\(escaped)"
    }
}
