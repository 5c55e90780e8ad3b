import OrientationCore

/// The window the presentation fills: its size in pixels, and how far the picture is turned in
/// it (clockwise degrees: 0, 90, 180, 270), as the player turns its overlays (`OverlayLayout`).
public struct Canvas: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var angle: Int

    public init(width: Int, height: Int, angle: Int = 0) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.angle = ((angle % 360) + 360) % 360 / 90 * 90
    }

    /// The picture's size as the viewer sees it.
    public var viewer: (width: Int, height: Int) { angle % 180 == 0 ? (width, height) : (height, width) }

    /// A point of the viewer's picture in the window.
    func toWindow(_ x: Double, _ y: Double) -> (Double, Double) {
        let p = PictureTurn.toPanel(x: x, y: y, width: Double(width), height: Double(height), angle: angle)
        return (p.x, p.y)
    }
}

/// A rectangle in whole pixels.
public struct Zone: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The edges rounded one by one, so that zones that meet share their edge.
    init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let (l, r) = (min(x0, x1).rounded(), max(x0, x1).rounded())
        let (t, b) = (min(y0, y1).rounded(), max(y0, y1).rounded())
        self.init(x: Int(l), y: Int(t), width: Int(r - l), height: Int(b - t))
    }
}

extension SMILDocument {
    /// Where a slot is in the window: the root layout scaled to the viewer's picture (each axis
    /// on its own: the presentation fills the window), the region at its scaled place, turned
    /// with the picture. Audio has no place.
    public func zone(_ slot: Slot, on canvas: Canvas) -> Zone? {
        let box: (left: Double, top: Double, width: Double, height: Double)
        switch slot {
        case .audio: return nil
        case .root: box = self.box(of: nil)
        case .region(let i): box = self.box(of: i)
        }
        let sx = Double(canvas.viewer.width) / layout.width, sy = Double(canvas.viewer.height) / layout.height
        let (x0, y0) = canvas.toWindow(box.left * sx, box.top * sy)
        let (x1, y1) = canvas.toWindow((box.left + box.width) * sx, (box.top + box.height) * sy)
        return Zone(x0, y0, x1, y1)
    }

    /// mpv's `video-margin-ratio-left`, `-right`, `-top` and `-bottom` that put its video in `zone`.
    public static func margins(of zone: Zone, on canvas: Canvas) -> [String: Double] {
        let w = Double(canvas.width), h = Double(canvas.height)
        let clamp = { (v: Double) in min(1, max(0, v)) }
        return [
            "video-margin-ratio-left": clamp(Double(zone.x) / w),
            "video-margin-ratio-right": clamp(Double(canvas.width - zone.x - zone.width) / w),
            "video-margin-ratio-top": clamp(Double(zone.y) / h),
            "video-margin-ratio-bottom": clamp(Double(canvas.height - zone.y - zone.height) / h),
        ]
    }

    /// Where media of `size` shows in a zone of `zone`'s size, by `fit` (SMIL 3.0 §7.4.9): `fill`
    /// stretches it; `meet` scales it whole into the zone, keeping its shape, and `meetBest` the
    /// same but never larger than it is; `slice` fills the zone, keeping its shape (what overflows
    /// is cut off); `hidden` and `scroll` show it at its size from the top left. Relative to the
    /// zone's top left; parts outside the zone are not shown.
    public static func fitted(_ size: (width: Int, height: Int), in zone: (width: Int, height: Int), fit: Fit)
        -> Zone
    {
        let mw = Double(max(1, size.width)), mh = Double(max(1, size.height))
        let zw = Double(zone.width), zh = Double(zone.height)
        let scale: Double
        switch fit {
        case .fill: return Zone(x: 0, y: 0, width: zone.width, height: zone.height)
        case .hidden, .scroll: return Zone(x: 0, y: 0, width: size.width, height: size.height)
        case .meet: scale = min(zw / mw, zh / mh)
        case .meetBest: scale = min(1, min(zw / mw, zh / mh))
        case .slice: scale = max(zw / mw, zh / mh)
        }
        let w = mw * scale, h = mh * scale
        return Zone((zw - w) / 2, (zh - h) / 2, (zw + w) / 2, (zh + h) / 2)
    }
}
