import ArgumentParser
import OrientationCore
import Sensors

/// `upright demo`: the detector on the built-in trace, with the script and every decision explained.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the orientation detector on the built-in demo trace and explain what it decides."
    )

    @Flag(help: "Print JSON lines (as `upright replay --explain`) instead of the readable log.")
    var json = false

    @Option(help: "Also write the demo trace to this CSV file (t,x,y,z), for `upright replay`.")
    var writeTrace: String?

    @OptionGroup(title: "Classifier parameters")
    var classifier: ClassifierOptions

    func run() throws {
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

enum DemoLog {
    static func stepLine(_ step: TraceScript.Step) -> String {
        "\(pad(seconds(step.start), 7))  script: \(step.label)"
    }

    static func changeLine(_ change: OrientationClassifier.Change) -> String {
        "\(pad(seconds(change.t), 7))    -> \(change.orientation.name) (\(change.why))"
    }

    static func seconds(_ t: Double) -> String {
        let cs = Int((t * 100).rounded())
        let frac = cs % 100
        return "\(cs / 100).\(frac < 10 ? "0" : "")\(frac) s"
    }

    static func pad(_ s: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - s.count)) + s
    }
}
