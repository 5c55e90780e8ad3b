public import OrientationCore

/// Where a touch lands, as values. A touchscreen reports points in its panel's own frame (0 to 1
/// across and down, as the panel draws at transform 0). The compositor turns them with its
/// output (sway's `map_to_output`, X11's coordinate matrix: ``OutputTransform/touchMatrix``), and,
/// in the `surface` strategy, where the output stays and only the picture turns inside
/// Upright's window, Upright turns what reaches its window by the picture's own turn.
public enum TouchPath {
    /// A point, each coordinate from 0 to 1 across and down.
    public typealias Point = (x: Double, y: Double)

    /// Where a point of the panel (or screen) lands once `transform` turns what it shows: the
    /// touch matrix applied (a clockwise quarter turn takes the top-right corner to the top-left).
    public static func turned(_ p: Point, by transform: OutputTransform) -> Point {
        let m = transform.touchMatrix
        return (m[0] * p.x + m[1] * p.y + m[2], m[3] * p.x + m[4] * p.y + m[5])
    }

    /// The turn of the picture inside the window in the `surface` strategy: the interface's angle
    /// beyond what the output shows (`output`, on a panel whose natural orientation is `natural`).
    public static func pictureTurn(
        interface: InterfaceOrientation, output: OutputTransform, natural: InterfaceOrientation
    ) -> OutputTransform {
        OutputTransform(clockwise: interface.angle - output.interface(natural: natural).angle)
    }

    /// A point of Upright's window as the picture's own point: turned back by the picture's turn
    /// in the `surface` strategy; the same point in the `interface` strategy (the output turned).
    public static func picturePoint(
        window p: Point, strategy: AppliedStrategy, interface: InterfaceOrientation, output: OutputTransform,
        natural: InterfaceOrientation
    ) -> Point {
        guard strategy == .surface else { return p }
        return turned(p, by: pictureTurn(interface: interface, output: output, natural: natural))
    }

    /// The way back: a point of the picture (as the viewer sees it) as the touchscreen's own
    /// point, through the picture's clockwise turn in the window (`pictureTurn`, the surface
    /// strategy's) and the output's transform.
    public static func panelPoint(picture p: Point, pictureTurn: Int, output: OutputTransform) -> Point {
        turned(p, by: OutputTransform(clockwise: -(pictureTurn + output.clockwise)))
    }

    /// The whole path of a touch at panel point `p`: the compositor's mapping to its output
    /// (turned by `output`), then Upright's to the picture.
    public static func picturePoint(
        panel p: Point, strategy: AppliedStrategy, interface: InterfaceOrientation, output: OutputTransform,
        natural: InterfaceOrientation
    ) -> Point {
        let window = turned(p, by: output)
        return picturePoint(window: window, strategy: strategy, interface: interface, output: output, natural: natural)
    }
}
