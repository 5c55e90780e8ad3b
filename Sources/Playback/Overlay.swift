public import OrientationCore

/// Text overlays drawn by mpv's OSD (`osd-overlay`, ASS events), laid out in a virtual canvas of the
/// OSD's size and turned with the video in the `surface` strategy so they stay readable.
public struct OverlayLayout: Sendable, Hashable {
    /// The OSD size in pixels (`osd-dimensions`); 1280×720 when mpv does not know it (vo=null).
    public var width: Int
    public var height: Int
    /// The clockwise angle the content is turned on the panel (the surface strategy's angle; 0 for
    /// the interface strategy, where the output itself turns).
    public var angle: Int

    public init(width: Int, height: Int, angle: Int) {
        self.width = width > 0 ? width : 1280
        self.height = height > 0 ? height : 720
        self.angle = ((angle % 360) + 360) % 360
    }

    /// The size of the screen as the viewer sees it (width and height swap for 90° and 270°).
    public var viewerSize: (width: Int, height: Int) { angle % 180 == 0 ? (width, height) : (height, width) }

    /// Maps a point in the viewer's frame (x right, y down, as they see the screen) to the panel's
    /// (the OSD canvas), for a content turn of `angle` degrees clockwise.
    public func toPanel(x: Double, y: Double) -> (x: Double, y: Double) {
        PictureTurn.toPanel(x: x, y: y, width: Double(width), height: Double(height), angle: angle)
    }

    /// The inverse of ``toPanel(x:y:)``: a point of the panel (the OSD canvas, as mpv's
    /// `mouse-pos` gives it) in the viewer's frame.
    public func toViewer(x: Double, y: Double) -> (x: Double, y: Double) {
        PictureTurn.toViewer(x: x, y: y, width: Double(width), height: Double(height), angle: angle)
    }

    /// One ASS event line: `text` anchored at its centre at the viewer's (x, y), turned so it reads
    /// upright to the viewer, in `size` pixels. ASS's `\frz` turns counter-clockwise, hence the minus.
    public func text(_ text: String, x: Double, y: Double, size: Int) -> String {
        let p = toPanel(x: x, y: y)
        let escaped = ASSText.escaped(text)
        return "{\\an5\\pos(\(Int(p.x.rounded())),\(Int(p.y.rounded())))\\frz\(-angle)\\fs\(size)\\bord2}\(escaped)"
    }
}

/// What the overlays show.
public struct OverlayContent: Sendable, Hashable {
    public var clock: String = ""
    public var title: String = ""
    public var locked = false
    /// The rotate suggestion offered while locked.
    public var suggestion: InterfaceOrientation?
    /// A message (a file that could not be played, ...), shown until cleared.
    public var message: String?

    public init() {}

    /// This content with `change` made to it.
    public func changed(by change: (inout OverlayContent) -> Void) -> OverlayContent {
        var next = self
        change(&next)
        return next
    }

    /// The status line: clock, title and the lock.
    public var statusLine: String {
        [clock, title, locked ? "rotation locked" : ""].filter { !$0.isEmpty }.joined(separator: "  ·  ")
    }
}

/// The overlays with their z-levels: the status line above the video, the suggestion and messages above that.
public enum OverlayLevel: Int, Sendable, CaseIterable {
    case status = 10
    case suggestion = 20
    case message = 30
    /// The touch check's target and words (``PlaybackCore/touchCheckReport``).
    case touch = 40
}
