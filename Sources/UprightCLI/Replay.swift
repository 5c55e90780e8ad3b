import ArgumentParser
import Config
public import OrientationCore
import Sensors
import Session
import Wire

/// `upright replay TRACE.csv`: the classifier over a recorded trace, as fast as it runs.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the orientation detector over a trace and print each change as a JSON line.",
        discussion: """
            TRACE.csv has the header t,x,y,z: seconds, then m/s² in the device frame (x toward the \
            right edge, y toward the top edge, z out of the screen). Each change of the reported \
            device orientation, the first report included, prints {"t": <seconds>, "orientation": "<name>"}.
            """
    )

    @Argument(help: "The trace to replay (CSV with the header t,x,y,z).")
    var trace: String

    @Flag(help: "Add a \"why\" field that explains each change.")
    var explain = false

    @Option(help: "Dry run: decide with this configuration's [app], [display], [scenes.NAME] and [lock] tables.")
    var config: String?

    @Option(help: "Dry run: commands at given times, JSON lines such as {\"t\": 5.0, \"command\": \"fullscreen\"}.")
    var events: String?

    @Option(help: "Dry run: what the display can do: kiosk (turns its output), windowed, or none.")
    var display: DisplayChoice?

    @OptionGroup(title: "Classifier parameters")
    var classifier: ClassifierOptions

    enum DisplayChoice: String, ExpressibleByArgument, CaseIterable {
        case kiosk, windowed, none
        var abilities: DisplayAbilities {
            switch self {
            case .kiosk: .kiosk
            case .windowed: DisplayAbilities(canRotateOutput: true, ownsOutput: false)
            case .none: .none
            }
        }
    }

    func run() throws {
        let samples: [GravitySample]
        do {
            samples = try Trace.load(path: trace).samples
        } catch {
            throw CLIFailure(diagnostic: error.description)
        }
        var out = OutputBuffer()
        defer { out.flush() }
        guard config != nil || events != nil || display != nil else {
            ReplayRun.run(samples, parameters: classifier.parameters) { change in
                out.write(ReplayRun.jsonLine(change, explain: explain))
            }
            return
        }
        let configuration = try loadConfiguration(config)
        let timed = try events.map { path throws(CLIFailure) in try EventsFile.load(path: path) } ?? []
        var parameters = configuration.classifier
        parameters.override(with: classifier)
        let abilities = display?.abilities ?? (configuration.display.backend == .none ? .none : .kiosk)
        do {
            try DryRun.run(
                samples: samples, classifier: parameters, policy: configuration.policy, display: abilities,
                locked: configuration.lock.locked, events: timed, explain: explain
            ) { out.write($0) }
        } catch {
            throw CLIFailure(error.description)
        }
    }
}

/// The replay loop and its output format, shared by `replay` and the tests.
public enum ReplayRun {
    /// Feeds every sample to a new classifier and calls `report` for each change.
    public static func run(
        _ samples: [GravitySample], parameters: OrientationClassifier.Parameters,
        report: (OrientationClassifier.Change) -> Void
    ) {
        var classifier = OrientationClassifier(parameters: parameters)
        for s in samples {
            if let change = classifier.feed(s) { report(change) }
        }
    }

    /// `{"t": 1.25, "orientation": "landscape-left"}`, with `"why"` when `explain` is set and
    /// `"locked": true` when `locked` is.
    public static func jsonLine(_ change: OrientationClassifier.Change, explain: Bool, locked: Bool = false) -> String {
        JSONLine.encode(
            ChangeRecord(
                t: change.t, orientation: change.orientation, why: explain ? change.why : nil,
                locked: locked ? true : nil))
    }
}
