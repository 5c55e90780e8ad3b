import ArgumentParser
import Diagnostics
import Files
import Foundation
import SMIL

/// `upright check-smil FILE`: a SMIL index read, what it leaves out with why, and what each of
/// its zones would show when, played on its own from a moment.
struct CheckSMIL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-smil",
        abstract: "Read a SMIL index and print what each zone would show, and what it leaves out.",
        discussion: """
            The index's warnings and errors go to standard error (FILE:LINE:COL). Then, one line \
            a change: the time from the start, the zone (a region's name, the root layout, or \
            audio) and what it shows (a file, a brush's colour, '-' for nothing). A video is \
            taken to last --video-seconds (the player learns each one's own length). Wallclock \
            times are local time, from --start (now by default). Exit status 0 when the index \
            can be played, 1 when it is refused as a whole.
            """)

    @Argument(help: "The SMIL index (a file).")
    var file: String

    @Option(help: "How long to play it, in seconds.")
    var seconds: Double = 60

    @Option(help: "How long each video lasts, in seconds.")
    var videoSeconds: Double = 10

    @Option(help: "The local date and time it starts at (YYYY-MM-DDTHH:MM:SS; now by default).")
    var start: String?

    func validate() throws {
        guard seconds > 0, seconds <= 7 * 86_400 else { throw ValidationError("--seconds is 0 to a week") }
        guard videoSeconds > 0, videoSeconds <= 86_400 else { throw ValidationError("--video-seconds is 0 to a day") }
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CLIFailure(diagnostic: "\(file): error: " + (readProblem(file) ?? "cannot be read"))
        }
        let doc: SMILDocument
        switch SMILDocument.read(Array(data), file: file) {
        case .failure(let refusal): throw CLIFailure(diagnostic: refusal.description)
        case .success(let d): doc = d
        }
        for d in doc.diagnostics { writeStandardError(d.description + "\n") }
        let offset = TimeZone.current.secondsFromGMT()
        var utc = Date().timeIntervalSince1970
        if let start {
            guard let w = Wallclock(Substring(start)), w.day != nil, w.repeats == 0 else {
                throw ValidationError("--start '\(start)' is not YYYY-MM-DDTHH:MM[:SS]")
            }
            utc = w.instance(near: 0, atOrAfter: true, localOffset: offset) ?? utc
        }
        var p = Presentation(doc, at: Moment(elapsed: 0, utc: utc, utcOffset: offset))
        for (t, effect) in p.dryRun(for: seconds, videoLength: videoSeconds) {
            switch effect {
            case .show(let slot, let shown):
                let what = shown.media.kind == .brush ? "brush \(shown.media.color ?? "")" : shown.media.src
                print(String(format: "%9.3f  %@  %@", t, name(slot, doc), what))
            case .clear(let slot): print(String(format: "%9.3f  %@  -", t, name(slot, doc)))
            case .restarted: print(String(format: "%9.3f  the body begins again", t))
            case .prefetch(let src): print(String(format: "%9.3f  prefetch %@", t, src))
            case .hold: break
            }
        }
    }

    func name(_ slot: Slot, _ doc: SMILDocument) -> String {
        if case .region = slot { return "region '\(doc.name(of: slot))'" }
        return doc.name(of: slot)
    }
}
