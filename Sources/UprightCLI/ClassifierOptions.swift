import ArgumentParser
import OrientationCore

/// Command-line overrides for every classifier parameter (defaults in ``OrientationClassifier/Parameters``).
struct ClassifierOptions: ParsableArguments {
    @Option(help: "Low-pass time constant on the gravity vector, seconds.")
    var filterTimeConstant: Double?
    @Option(help: "How long a new orientation must hold, with no motion, before it is reported, seconds.")
    var settleTime: Double?
    @Option(help: "How long after the last motion sample no change is committed, seconds.")
    var quietTime: Double?
    @Option(help: "Motion threshold: |a| further than this fraction of g from g.")
    var accelerationTolerance: Double?
    @Option(help: "Below this |a| (m/s²) a sample is free fall.")
    var freeFallMagnitude: Double?
    @Option(help: "Degrees past the 45° boundary needed to leave the current orientation.")
    var hysteresis: Double?
    @Option(help: "Before the first report, degrees short of the 45° boundary needed to decide.")
    var initialMargin: Double?
    @Option(help: "Tilt out of the vertical, degrees, beyond which the device is face up or down.")
    var faceEnterTilt: Double?
    @Option(help: "Tilt, degrees, under which a flat device is upright again.")
    var faceExitTilt: Double?
    @Option(help: "A change is committed only while the direction turns slower than this, °/s.")
    var maxTurnRate: Double?
    @Option(help: "The turn rate is measured over windows at least this long, seconds.")
    var turnRateWindow: Double?
    @Option(help: "A gap between samples longer than this, seconds, restarts the filter.")
    var maxGap: Double?
    @Option(help: "Gravity magnitude the motion test compares with, m/s².")
    var gravity: Double?

    /// The default parameters with the given overrides applied.
    var parameters: OrientationClassifier.Parameters {
        var p = OrientationClassifier.Parameters()
        p.override(with: self)
        return p
    }

    func validate() throws {
        let problems = parameters.problems
        if !problems.isEmpty { throw ValidationError(problems.joined(separator: "; ")) }
    }
}

extension OrientationClassifier.Parameters {
    /// Applies the options given on the command line.
    mutating func override(with o: ClassifierOptions) {
        var p = self
        defer { self = p }
        let filterTimeConstant = o.filterTimeConstant, settleTime = o.settleTime, quietTime = o.quietTime
        let accelerationTolerance = o.accelerationTolerance, freeFallMagnitude = o.freeFallMagnitude
        let hysteresis = o.hysteresis, initialMargin = o.initialMargin, faceEnterTilt = o.faceEnterTilt
        let faceExitTilt = o.faceExitTilt, maxTurnRate = o.maxTurnRate, maxGap = o.maxGap, gravity = o.gravity
        let turnRateWindow = o.turnRateWindow
        if let filterTimeConstant { p.filterTimeConstant = filterTimeConstant }
        if let settleTime { p.settleTime = settleTime }
        if let quietTime { p.quietTime = quietTime }
        if let accelerationTolerance { p.accelerationTolerance = accelerationTolerance }
        if let freeFallMagnitude { p.freeFallMagnitude = freeFallMagnitude }
        if let hysteresis { p.hysteresis = hysteresis }
        if let initialMargin { p.initialMargin = initialMargin }
        if let faceEnterTilt { p.faceEnterTilt = faceEnterTilt }
        if let faceExitTilt { p.faceExitTilt = faceExitTilt }
        if let maxTurnRate { p.maxTurnRate = maxTurnRate }
        if let turnRateWindow { p.turnRateWindow = turnRateWindow }
        if let maxGap { p.maxGap = maxGap }
        if let gravity { p.gravity = gravity }
    }
}
