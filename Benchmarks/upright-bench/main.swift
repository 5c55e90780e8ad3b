// Classifier throughput: samples per second on one core, release build.
//
//   upright-bench TRACE.csv [--seconds S]
//
// Feeds the trace to the classifier over and over (times shifted so they keep increasing) for
// about S seconds and prints one JSON object with the figures.
import Foundation
import OrientationCore
import Sensors

var arguments = CommandLine.arguments.dropFirst()
var budget = 3.0
var path: String?
while let a = arguments.popFirst() {
    if a == "--seconds", let v = arguments.popFirst(), let s = Double(v) { budget = s } else { path = a }
}
guard let path else {
    FileHandle.standardError.write(Data("usage: upright-bench TRACE.csv [--seconds S]\n".utf8))
    exit(2)
}
let samples: [GravitySample]
do {
    samples = try Trace.load(path: path).samples
} catch {
    FileHandle.standardError.write(Data("upright-bench: error: \(error)\n".utf8))
    exit(1)
}
/// Feeds every sample, shifted by `offset`, and counts the changes. Everything is local, so the
/// loop measures the classifier and not access to globals.
func pass(_ classifier: inout OrientationClassifier, _ samples: [GravitySample], offset: Double) -> Int {
    var changes = 0
    for s in samples {
        var shifted = s
        shifted.t += offset
        if classifier.feed(shifted) != nil { changes += 1 }
    }
    return changes
}

func measure(_ samples: [GravitySample], budget: Double) -> (fed: Int, seconds: Double, changes: Int) {
    let span = samples.last!.t - samples.first!.t + 1
    var classifier = OrientationClassifier()
    var offset = 0.0
    _ = pass(&classifier, samples, offset: offset)  // warm-up
    let clock = ContinuousClock()
    var fed = 0
    var changes = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        offset += span
        changes += pass(&classifier, samples, offset: offset)
        fed += samples.count
        elapsed = clock.now - start
    } while elapsed < .seconds(budget)
    return (fed, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, changes)
}

let (fed, seconds, changes) = measure(samples, budget: budget)
print(
    "{\"samples\": \(fed), \"seconds\": \(seconds), \"samples_per_s\": \(Double(fed) / seconds), \"changes\": \(changes)}"
)
