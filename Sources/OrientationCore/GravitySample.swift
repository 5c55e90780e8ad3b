/// One accelerometer reading: time in seconds and the specific force in m/s², in the device
/// frame (x toward the right edge, y toward the top edge, z out of the screen; upright at rest
/// reads about (0, +9.81, 0)).
public struct GravitySample: Sendable, Hashable {
    public var t: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(t: Double, x: Double, y: Double, z: Double) {
        self.t = t
        self.x = x
        self.y = y
        self.z = z
    }

    /// The length of the vector in m/s².
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// True when every component is a finite number.
    public var isFinite: Bool { t.isFinite && x.isFinite && y.isFinite && z.isFinite }
}

/// Standard gravity, m/s².
public let standardGravity = 9.80665
