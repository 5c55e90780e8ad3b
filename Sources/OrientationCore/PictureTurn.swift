/// A picture turned clockwise by `angle` (0, 90, 180, 270) inside a panel of `width` ×
/// `height` pixels (the panel's own): where a point of the picture as the viewer sees it lands
/// on the panel, and back. The player's overlays, the touch check's taps and SMIL's zones all
/// turn this way.
public enum PictureTurn {
    public static func toPanel(x: Double, y: Double, width: Double, height: Double, angle: Int) -> (
        x: Double, y: Double
    ) {
        switch angle {
        case 90: (width - y, x)  // the viewer's top edge is the panel's right edge
        case 180: (width - x, height - y)
        case 270: (y, height - x)
        default: (x, y)
        }
    }

    public static func toViewer(x: Double, y: Double, width: Double, height: Double, angle: Int) -> (
        x: Double, y: Double
    ) {
        switch angle {
        case 90: (y, width - x)
        case 180: (width - x, height - y)
        case 270: (height - y, x)
        default: (x, y)
        }
    }
}

/// Text as libass (mpv's OSD) reads it in an ASS event: `\`, `{` and `}` taken literally, a new
/// line as `\N`.
public enum ASSText {
    public static func escaped(_ text: some StringProtocol) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\", "{", "}": out += "\\\(c)"
            case "\n": out += "\\N"
            default: out.append(c)
            }
        }
        return out
    }
}
