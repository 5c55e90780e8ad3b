import ArgumentParser
import Demo
import Foundation
import OrientationCore
import Sensors
import UprightDaemon

/// `upright demo`: the whole program on a built-in test pattern and rotation script, leaving
/// snapshots, a contact sheet and the decision log; `--detector` explains the detector alone.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the built-in demo: a test pattern turned by a scripted device, hotkey and lock.",
        discussion: """
            The script (portrait → landscape → full-screen hotkey → lock → forced rotation → unlock → \
            flat → back) drives the replay: sensor, the policy and the player. A PNG snapshot of the \
            screen is left for each step, with a contact sheet of them and the decision log, in --out. \
            It plays in a window when WAYLAND_DISPLAY or DISPLAY is set, headless otherwise. \
            With --detector: the orientation detector alone on a longer trace, every change explained.
            """
    )

    @Option(help: "Where the snapshots, the contact sheet and the decision log go.")
    var out = "upright-demo"
    @Option(help: "Play this many times faster than real time.")
    var speed: Double = 1
    @Flag(help: "Render headless even when a display exists.")
    var headless = false
    @Flag(help: "Explain the orientation detector alone on its demo trace instead.")
    var detector = false

    @Flag(help: "With --detector: JSON lines (as `upright replay --explain`) instead of the readable log.")
    var json = false

    @Option(help: "With --detector: also write its trace to this CSV file (t,x,y,z), for `upright replay`.")
    var writeTrace: String?

    @OptionGroup(title: "Classifier parameters (with --detector)")
    var classifier: ClassifierOptions

    func validate() throws {
        guard speed > 0, speed <= 20 else { throw ValidationError("--speed must be above 0 and at most 20") }
    }

    func run() async throws {
        if detector || json || writeTrace != nil {
            try runDetector()
            return
        }
        let environment = ProcessInfo.processInfo.environment
        var demo = DemoRun(outputDirectory: out)
        demo.speed = speed
        demo.window = !headless && (environment["WAYLAND_DISPLAY"] != nil || environment["DISPLAY"] != nil)
        print(
            "Upright demo: \(ProductDemo.steps.count) steps, \(demo.window ? "in a window" : "headless"), "
                + "snapshots in \(out)/")
        let result: DemoRun.Result
        do {
            result = try await demo.run(
                step: { s in print("\(DemoLog.pad(DemoLog.seconds(s.start), 7))  \(s.label)") },
                decision: { d in print("           " + DemoLog.decisionLine(d)) })
        } catch {
            throw CLIFailure("the demo could not run: \(error)")
        }
        print("snapshots: \(result.snapshots.count) PNG files in \(out)/")
        if let sheet = result.contactSheet { print("contact sheet: \(sheet)") }
        print("decision log: \(result.decisionLog)")
    }

    /// The detector alone on its trace, every change explained.
    func runDetector() throws {
        var out = OutputBuffer()
        let samples = DemoTrace.samples()
        if let writeTrace {
            do {
                try Trace(samples: samples).write(to: writeTrace)
            } catch {
                throw CLIFailure("cannot write the trace to \(writeTrace): \(error.localizedDescription)")
            }
        }
        var steps = DemoTrace.script.steps[...]
        if !json {
            out.write(
                "Upright demo: \(samples.count) samples at 50 Hz, \(steps.count) steps; each change of the "
                    + "reported device orientation is explained")
        }
        ReplayRun.run(samples, parameters: classifier.parameters) { change in
            if json {
                out.write(ReplayRun.jsonLine(change, explain: true))
                return
            }
            while let step = steps.first, step.start <= change.t {
                out.write(DemoLog.stepLine(step))
                steps.removeFirst()
            }
            out.write(DemoLog.changeLine(change))
        }
        if !json {
            for step in steps { out.write(DemoLog.stepLine(step)) }
        }
        out.flush()
    }
}
