public import OrientationCore
public import Settings

/// How the device is physically held, measured on request while the rotation lock is on.
public struct MotionReading: Sendable, Hashable {
    public var orientation: DeviceOrientation
    /// 0 to 1: how sure the reading is (steady, away from the boundaries, |a| near g).
    public var confidence: Double
    /// Readings averaged.
    public var samples: Int
    /// `gravity channel`, `accelerometer`, or `none`.
    public var source: String
    /// Seconds the measurement took.
    public var elapsed: Double

    public static let unknown = MotionReading(
        orientation: .unknown, confidence: 0, samples: 0, source: "none", elapsed: 0)
}

/// The motion fallback: a short burst of readings, from a gravity channel when the device has one
/// (a sensor hub's fused gravity vector) and the low-passed accelerometer otherwise, answered
/// within `budget` seconds (300 ms by default). With no sensor it answers `unknown` at once.
public enum MotionFallback {
    public static func measure(
        _ settings: SensorSettings, window: Double = 0.2, budget: Double = 0.3,
        parameters: OrientationClassifier.Parameters = .init()
    ) -> MotionReading {
        let start = monotonicSeconds()
        guard settings.uri.iioURI != nil else { return .unknown }
        let source: Accelerometer
        let name: String
        if let g = try? Accelerometer(
            settings: SensorSettings(
                uri: settings.uri, device: "auto",
                mountMatrix: settings.mountMatrix), kind: "gravity")
        {
            (source, name) = (g, "gravity channel")
        } else if let a = try? Accelerometer(settings: settings) {
            (source, name) = (a, "accelerometer")
        } else {
            return MotionReading(
                orientation: .unknown, confidence: 0, samples: 0, source: "none",
                elapsed: monotonicSeconds() - start)
        }
        var readings: [(x: Double, y: Double, z: Double)] = []
        let end = min(start + window, start + budget - 0.02)
        repeat {
            if let v = try? source.read() { readings.append(v) }
            sleep(until: min(end, monotonicSeconds() + 0.01))
        } while monotonicSeconds() < end
        guard !readings.isEmpty else {
            return MotionReading(
                orientation: .unknown, confidence: 0, samples: 0, source: name,
                elapsed: monotonicSeconds() - start)
        }
        let n = Double(readings.count)
        let mean = readings.reduce((x: 0.0, y: 0.0, z: 0.0)) { ($0.x + $1.x / n, $0.y + $1.y / n, $0.z + $1.z / n) }
        var (orientation, confidence) = OrientationClassifier.snapshot(
            x: mean.x, y: mean.y, z: mean.z, parameters: parameters)
        // A shaky burst is less sure: scale by the spread of the readings around their mean.
        let spread =
            (readings.map { r in
                let d = (r.x - mean.x, r.y - mean.y, r.z - mean.z)
                return d.0 * d.0 + d.1 * d.1 + d.2 * d.2
            }.reduce(0, +) / n).squareRoot()
        confidence *= max(0, 1 - spread / 3)
        return MotionReading(
            orientation: orientation, confidence: confidence, samples: readings.count, source: name,
            elapsed: monotonicSeconds() - start)
    }
}
