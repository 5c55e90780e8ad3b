import Glibc

/// This screen's place in a video wall (`[wall]`): the picture spans the whole wall, bezels
/// included, and each screen shows its part of it, cut by mpv's zoom and pan (no re-encode, no
/// filter pass). Everything is in the viewer's frame: a wall of turned screens turns its outputs
/// (`[display] transform`, or the interface strategy), and mpv's window is then the viewer's.
public struct WallTile: Sendable, Hashable {
    public var columns: Int
    public var rows: Int
    /// This screen's place, from the left and from the top (0 first).
    public var column: Int
    public var row: Int
    /// The share of a tile's width (height) hidden behind the bezels between two screens,
    /// across (down).
    public var bezel: (across: Double, down: Double)

    public init(columns: Int, rows: Int, column: Int, row: Int, bezel: (across: Double, down: Double) = (0, 0)) {
        (self.columns, self.rows, self.column, self.row, self.bezel) = (columns, rows, column, row, bezel)
    }

    public static func == (a: WallTile, b: WallTile) -> Bool {
        (a.columns, a.rows, a.column, a.row) == (b.columns, b.rows, b.column, b.row) && a.bezel == b.bezel
    }

    public func hash(into h: inout Hasher) {
        h.combine(columns)
        h.combine(rows)
        h.combine(column)
        h.combine(row)
        h.combine(bezel.across)
        h.combine(bezel.down)
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
