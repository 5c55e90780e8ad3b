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
    @Option(help: "While moving: time constant of each of the gravity estimate's two filter stages, seconds.")
    var motionFilterTimeConstant: Double?
    @Option(help: "The share of samples in motion is averaged over about this long, seconds.")
    var motionLevelTime: Double?
    @Option(help: "Above this share of recent samples in motion (0-1) the device counts as moving.")
    var movingLevel: Double?
    @Option(help: "While moving: how long a new upright orientation must hold before it is reported, seconds.")
    var movingSettleTime: Double?
    @Option(help: "While moving: how long face up or face down must hold before it is reported, seconds.")
    var movingFaceSettleTime: Double?
    @Option(help: "While moving: a change is committed only while the gravity estimate turns slower than this, °/s.")
    var movingMaxTurnRate: Double?
    @Option(help: "While moving: the gravity estimate's turn is measured over windows this long, seconds.")
    var movingTurnWindow: Double?
    @Option(help: "While moving: the gravity estimate counts only within this fraction of g.")
    var movingTolerance: Double?
    @Option(help: "While moving: tilt, degrees, under which a flat device is upright again.")
    var movingFaceExitTilt: Double?
    @Option(help: "While moving: tilt, degrees, beyond which the device is face up or face down.")
    var movingFaceEnterTilt: Double?
    @Option(help: "While moving: beyond this tilt, degrees, the upright orientation held is kept.")
    var movingTurnTilt: Double?
    @Option(help: "Above this share of recent samples in motion, the face and turn limits of motion apply at rest too.")
    var stirredLevel: Double?
    @Option(help: "With no report this long after the start, seconds, the nearest orientation is taken.")
    var firstReportWithin: Double?

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
        let given: [(Double?, WritableKeyPath<Self, Double>)] = [
            (o.filterTimeConstant, \.filterTimeConstant), (o.settleTime, \.settleTime), (o.quietTime, \.quietTime),
            (o.accelerationTolerance, \.accelerationTolerance), (o.freeFallMagnitude, \.freeFallMagnitude),
            (o.hysteresis, \.hysteresis), (o.initialMargin, \.initialMargin), (o.faceEnterTilt, \.faceEnterTilt),
            (o.faceExitTilt, \.faceExitTilt), (o.maxTurnRate, \.maxTurnRate), (o.turnRateWindow, \.turnRateWindow),
            (o.maxGap, \.maxGap), (o.gravity, \.gravity), (o.motionFilterTimeConstant, \.motionFilterTimeConstant),
            (o.motionLevelTime, \.motionLevelTime), (o.movingLevel, \.movingLevel),
            (o.movingSettleTime, \.movingSettleTime), (o.movingFaceSettleTime, \.movingFaceSettleTime),
            (o.movingMaxTurnRate, \.movingMaxTurnRate), (o.movingTurnWindow, \.movingTurnWindow),
            (o.movingTolerance, \.movingTolerance), (o.movingFaceExitTilt, \.movingFaceExitTilt),
            (o.movingFaceEnterTilt, \.movingFaceEnterTilt), (o.movingTurnTilt, \.movingTurnTilt),
            (o.stirredLevel, \.stirredLevel),
            (o.firstReportWithin, \.firstReportWithin),
        ]
        for case (let value?, let keyPath) in given { self[keyPath: keyPath] = value }
    }
}
