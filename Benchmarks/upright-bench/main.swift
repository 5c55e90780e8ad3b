// Upright's micro-benchmarks, release build, one core.
//
//   upright-bench TRACE.csv [--seconds S]     classifier throughput, samples per second
//   upright-bench --policy [--seconds S]      policy decisions: time per event
//   upright-bench --player                    libmpv through the software render API: start → first
//                                             frame, rotate → first turned frame (beside turning by
//                                             reloading the file), hotkey → relayout; extra mpv
//                                             options to try: UPRIGHT_BENCH_MPV="name=value,..."
//   upright-bench --display                   on a headless sway: decision → output turned and mpv
//                                             laid out again, beside the surface strategy
//   upright-bench --config FILE [--reads N]   a configuration read N times: heap kept and time per
//                                             read, beside TOMLKit (toml++)
//   upright-bench --items                     item changes (image, video, video): black frames between
//                                             them and the image's shown time, beside plain libmpv
//
// The classifier is fed the trace over and over (times shifted so they keep increasing); the
// policy a fixed, varied stream of device turns, lock and scene commands. Each prints one JSON
// object with the figures.
import Foundation
import OrientationCore
import Sensors

var arguments = CommandLine.arguments.dropFirst()
var budget = 3.0
var path: String?
var policyMode = false
var playerMode = false
var displayMode = false
var itemsMode = false
var configPath: String?
var reads = 2000
while let a = arguments.popFirst() {
    if a == "--seconds", let v = arguments.popFirst(), let s = Double(v) {
        budget = s
    } else if a == "--policy" {
        policyMode = true
    } else if a == "--player" {
        playerMode = true
    } else if a == "--display" {
        displayMode = true
    } else if a == "--config", let v = arguments.popFirst() {
        configPath = v
    } else if a == "--reads", let v = arguments.popFirst(), let n = Int(v) {
        reads = n
    } else if a == "--items" {
        itemsMode = true
    } else {
        path = a
    }
}

/// Decisions per second of the standard policy on a kiosk, every event evaluated at once
/// (transitions of zero length, so nothing waits in the queue).
func measurePolicy(budget: Double) -> (events: Int, seconds: Double, decisions: Int) {
    var configuration = PolicyConfiguration()
    configuration.scenes["menu"] = Scene("menu")
    configuration.transitionDuration = 0
    let script: [PolicyEvent] = [
        .device(.portrait), .command(.fullscreen), .device(.landscapeLeft), .device(.landscapeRight),
        .device(.faceUp), .command(.lock), .motion(.landscapeLeft), .command(.acceptSuggestion),
        .command(.present("menu")), .device(.unknown), .command(.dismiss), .command(.unlock),
        .device(.landscapeLeft), .command(.rotateTo(.landscapeLeft)), .display(.none), .display(.kiosk),
        .command(.fullscreen), .device(.portraitUpsideDown),
    ]
    guard var policy = try? OrientationPolicy(configuration: configuration, display: .kiosk) else {
        fatalError("the benchmark's policy configuration is invalid: \(configuration.problems)")
    }
    var t = 0.0
    var events = 0, decisions = 0
    let clock = ContinuousClock()
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for e in script {
            t += 0.01
            for output in policy.handle(e, at: t) {
                if case .decision = output { decisions += 1 }
            }
        }
        events += script.count
        elapsed = clock.now - start
    } while elapsed < .seconds(budget)
    return (events, elapsed.seconds, decisions)
}

if playerMode {
    await measurePlayer()
    exit(0)
}
if displayMode {
    await measureDisplay()
    exit(0)
}
if let configPath {
    measureConfig(path: configPath, reads: reads)
    exit(0)
}
if itemsMode {
    await measureItems()
    exit(0)
}

if policyMode {
    let (events, seconds, decisions) = measurePolicy(budget: budget)
    print(
        "{\"events\": \(events), \"decisions\": \(decisions), \"seconds\": \(seconds), "
            + "\"us_per_event\": \(seconds / Double(events) * 1e6)}")
    exit(0)
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
    return (fed, elapsed.seconds, changes)
}

let (fed, seconds, changes) = measure(samples, budget: budget)
print(
    "{\"samples\": \(fed), \"seconds\": \(seconds), \"samples_per_s\": \(Double(fed) / seconds), \"changes\": \(changes)}"
)
