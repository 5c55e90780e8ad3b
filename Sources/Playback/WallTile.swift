import Glibc
public import OrientationCore

/// This screen's place in a video wall (`[wall]`): the picture spans the whole wall, bezels
/// included, and each screen shows its part of it, cut by mpv's zoom and pan (no re-encode, no
/// filter pass). Everything is in the viewer's frame: the grid is the wall as a viewer sees it
/// while the interface is in ``orientation``; a wall turned on its mount (the interface turned
/// from it) is another grid (``seen(in:)``), and a screen that turns only its video (the surface
/// strategy) has its pan turned with it (``placement(window:video:surfaceAngle:)``).
public struct WallTile: Sendable, Hashable {
    public var columns: Int
    public var rows: Int
    /// This screen's place, from the left and from the top (0 first).
    public var column: Int
    public var row: Int
    /// The share of a tile's width (height) hidden behind the bezels between two screens,
    /// across (down).
    public var bezel: (across: Double, down: Double)
    /// The interface orientation in which the grid is as given: the wall as hung.
    public var orientation: InterfaceOrientation

    public init(
        columns: Int, rows: Int, column: Int, row: Int, bezel: (across: Double, down: Double) = (0, 0),
        orientation: InterfaceOrientation = .portrait
    ) {
        (self.columns, self.rows, self.column, self.row, self.bezel) = (columns, rows, column, row, bezel)
        self.orientation = orientation
    }

    public static func == (a: WallTile, b: WallTile) -> Bool {
        (a.columns, a.rows, a.column, a.row) == (b.columns, b.rows, b.column, b.row) && a.bezel == b.bezel
            && a.orientation == b.orientation
    }

    public func hash(into h: inout Hasher) {
        h.combine(columns)
        h.combine(rows)
        h.combine(column)
        h.combine(row)
        h.combine(bezel.across)
        h.combine(bezel.down)
        h.combine(orientation)
    }

    /// The tile as a viewer sees the wall while the interface is in `interface`: the interface
    /// turned clockwise from ``orientation`` means the wall was turned the other way on its
    /// mount, so its grid is turned counter-clockwise (a quarter turn swaps columns and rows,
    /// and the bezels' two shares): the screen on the left of a 3 × 1 wall is at the bottom of
    /// the 1 × 3 wall it becomes.
    public func seen(in interface: InterfaceOrientation) -> WallTile {
        var t = self
        for _ in 0..<(orientation.clockwiseTurn(to: interface) / 90) {
            // A quarter turn counter-clockwise: (column, row) in C × R → (row, C − 1 − column) in R × C.
            t = WallTile(
                columns: t.rows, rows: t.columns, column: t.row, row: t.columns - 1 - t.column,
                bezel: (t.bezel.down, t.bezel.across), orientation: interface)
        }
        t.orientation = interface
        return t
    }

    /// ``placement(window:video:)`` for a screen whose video is turned `surfaceAngle` degrees
    /// clockwise on its panel (the surface strategy; 0 when the output turns): `window` and
    /// `video` are mpv's, in the panel's frame (the picture as mpv shows it, turned); the tile is
    /// cut in the viewer's frame and its pan turned back to the panel's.
    public func placement(window: (width: Int, height: Int), video: (width: Int, height: Int), surfaceAngle: Int)
        -> (zoom: Double, panX: Double, panY: Double)?
    {
        let quarter = ((surfaceAngle / 90) % 2 + 2) % 2 == 1
        let viewerWindow = quarter ? (window.height, window.width) : window
        let viewerVideo = quarter ? (video.height, video.width) : video
        guard let p = placement(window: viewerWindow, video: viewerVideo) else { return nil }
        // A vector of the viewer's frame, turned clockwise on the panel: right becomes down.
        let (x, y) = (p.panX, p.panY)
        switch ((surfaceAngle % 360) + 360) % 360 {
        case 90: return (p.zoom, -y, x)
        case 180: return (p.zoom, -x, -y)
        case 270: return (p.zoom, y, -x)
        default: return p
        }
    }

    /// mpv's `video-zoom` (log2 of the scale) and `video-pan-x`/`-y` (shares of the scaled
    /// picture) that show this screen's part of a `video`-sized picture (its display size, as
    /// turned) in a `window`-sized window: the picture fitted to the wall (letterboxed on the
    /// wall as a whole), and the point of it behind this screen's centre brought to the window's.
    public func placement(window: (width: Int, height: Int), video: (width: Int, height: Int))
        -> (zoom: Double, panX: Double, panY: Double)?
    {
        let (w, h) = (Double(window.width), Double(window.height))
        let (vw, vh) = (Double(video.width), Double(video.height))
        guard w > 0, h > 0, vw > 0, vh > 0 else { return nil }
        // The wall in this window's pixels: the screens and the bezels between them.
        let wallW = w * (Double(columns) + Double(columns - 1) * bezel.across)
        let wallH = h * (Double(rows) + Double(rows - 1) * bezel.down)
        let scaleWall = min(wallW / vw, wallH / vh)
        let scaleWindow = min(w / vw, h / vh)
        // This screen's centre, from the wall's centre.
        let centreX = Double(column) * w * (1 + bezel.across) + w / 2 - wallW / 2
        let centreY = Double(row) * h * (1 + bezel.down) + h / 2 - wallH / 2
        let shown = (width: vw * scaleWall, height: vh * scaleWall)
        return (log2(scaleWall / scaleWindow), -centreX / shown.width, -centreY / shown.height)
    }
}
