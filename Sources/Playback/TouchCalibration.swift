/// The rules of a touch check, as a value: targets at the picture's corners and centre, each tap
/// judged a hit or a miss with its offset, and, from the taps, the calibration matrix that
/// would put each where its target is. Points are the picture's (0 to 1 across and down, as the
/// person holding the device sees it); the matrix is the touchscreen's own (libinput's
/// `LIBINPUT_CALIBRATION_MATRIX`, sway's `calibration_matrix`: it applies to the panel's points,
/// before any turn).
public struct TouchCalibration: Sendable {
    public typealias Point = (x: Double, y: Double)

    /// The targets in the order they are shown: the four corners, inset, then the centre.
    public static let targets: [Point] = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)]

    /// One tap, judged.
    public struct Tap: Sendable {
        public var target: Point
        public var tap: Point
        /// The offset in pixels of the picture (`width` × `height`), tap minus target.
        public var dx: Double
        public var dy: Double
        public var hit: Bool
    }

    /// The picture's size in pixels, for the offsets and the tolerance.
    public let width: Double
    public let height: Double
    /// How far from its target a tap may land and be a hit: a share of the picture's shorter side.
    public let tolerance: Double
    public private(set) var taps: [Tap] = []

    public init(width: Double, height: Double, tolerance: Double = 0.04) {
        (self.width, self.height, self.tolerance) = (width, height, tolerance)
    }

    /// The target waiting for a tap, or `nil` once every one has had its tap.
    public var next: Point? { taps.count < Self.targets.count ? Self.targets[taps.count] : nil }

    /// Records a tap at `p` on the target waiting; returns it judged (`nil` when none waits).
    @discardableResult
    public mutating func record(_ p: Point) -> Tap? {
        guard let target = next else { return nil }
        let dx = (p.x - target.x) * width, dy = (p.y - target.y) * height
        let limit = tolerance * min(width, height)
        let tap = Tap(target: target, tap: p, dx: dx, dy: dy, hit: (dx * dx + dy * dy).squareRoot() <= limit)
        taps.append(tap)
        return tap
    }

    /// Every tap landed on its target.
    public var allHit: Bool { taps.count == Self.targets.count && taps.allSatisfy(\.hit) }

    /// The matrix (a, b, c, d, e, f: x' = a x + b y + c, y' = d x + e y + f, in the panel's points)
    /// that would have put each tap on its target, given the path from the panel to the picture
    /// (`toPanel`: the turns of Display's `TouchPath` undone) and
    /// its inverse; a least-squares fit over the taps. `nil` before every target has its tap, or
    /// when the taps do not span the screen.
    public func matrix(toPanel: (Point) -> Point) -> [Double]? {
        guard taps.count == Self.targets.count else { return nil }
        let from = taps.map { toPanel($0.tap) }, to = taps.map { toPanel($0.target) }
        guard let (a, b, c) = Self.fit(from, to.map(\.x)), let (d, e, f) = Self.fit(from, to.map(\.y)) else {
            return nil
        }
        return [a, b, c, d, e, f]
    }

    /// Least squares for v ≈ a x + b y + c over the points: the normal equations, solved by
    /// Cramer's rule; `nil` when the points lie on a line.
    public static func fit(_ points: [Point], _ values: [Double]) -> (Double, Double, Double)? {
        var sxx = 0.0, sxy = 0.0, sx = 0.0, syy = 0.0, sy = 0.0, n = 0.0
        var sxv = 0.0, syv = 0.0, sv = 0.0
        for (p, v) in zip(points, values) {
            sxx += p.x * p.x; sxy += p.x * p.y; sx += p.x
            syy += p.y * p.y; sy += p.y; n += 1
            sxv += p.x * v; syv += p.y * v; sv += v
        }
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let m = [[sxx, sxy, sx], [sxy, syy, sy], [sx, sy, n]]
        let d = det(m)
        guard abs(d) > 1e-12 else { return nil }
        let r = [sxv, syv, sv]
        func replaced(_ column: Int) -> [[Double]] {
            m.enumerated().map { i, row in row.enumerated().map { j, x in j == column ? r[i] : x } }
        }
        return (det(replaced(0)) / d, det(replaced(1)) / d, det(replaced(2)) / d)
    }

    /// `after` applied to what `before` gives (both a, b, c, d, e, f): the matrix to set in place
    /// of a calibration in force (`before`) when the taps, calibrated by it, call for `after`.
    public static func compose(_ after: [Double], _ before: [Double]) -> [Double] {
        let (a, b, c, d, e, f) = (after[0], after[1], after[2], after[3], after[4], after[5])
        let (p, q, r, s, t, u) = (before[0], before[1], before[2], before[3], before[4], before[5])
        return [a * p + b * s, a * q + b * t, a * r + b * u + c, d * p + e * s, d * q + e * t, d * r + e * u + f]
    }

    /// The sway drop-in that applies `matrix` to the touchscreen sway names `identifier`.
    public static func swayDropIn(identifier: String, matrix: [Double]) -> String {
        let numbers = matrix.map { v in
            let rounded = (v * 1_000_000).rounded() / 1_000_000
            return rounded == 0 ? "0" : String(rounded)
        }
        return "# Written by upright touch-check: the touchscreen's calibration.\n"
            + "input \"\(identifier)\" calibration_matrix \(numbers.joined(separator: " "))\n"
    }
}
