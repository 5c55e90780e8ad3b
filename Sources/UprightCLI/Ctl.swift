import ArgumentParser
import Control
import Foundation
import OrientationCore
import Session
import UprightDaemon
import Wire

/// `upright ctl COMMAND`: one request to a running `upright play` over its control socket.
struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Control a running `upright play`: status, fullscreen, lock, unlock, rotate-to, ...",
        discussion: """
            Commands: status, screenshot [--out FILE] (a PNG of the screen; standard output without \
            --out), and the actions hotkeys and the events file take: fullscreen | lock | unlock | \
            toggle-lock | rotate-to ORIENTATION | rotate | accept-suggestion | next | previous (prev) | \
            scene push NAME | scene pop | scene present NAME | scene dismiss (or scene-push NAME ...) | \
            play CLIP (a clip scene's clip once, then back to the loop) | touch-check [start | stop | \
            tap X Y] (the touch check, as `upright touch-check` runs it). The reply \
            is one JSON line saying what happened: the decision, or why the command was refused, or that it \
            waits for the rotation under way; next and previous say what plays. The exit status is 1 when \
            the command was refused or the daemon answers with an error.
            """)

    @Option(
        help: """
            The control socket (default: the first that exists of $UPRIGHT_CONTROL, $XDG_RUNTIME_DIR/upright/control.sock, \
            /run/upright/control.sock and, for root, /run/user/*/upright/control.sock).
            """)
    var socket: String?
    @Argument(help: "The command and its argument.")
    var words: [String] = []

    @Option(help: "With screenshot: the PNG file to write (default: standard output).")
    var out: String?

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a command: \(ControlRequest.names.joined(separator: ", "))") }
    }

    /// The request line for the words given.
    static func request(_ words: [String]) throws -> String {
        var command = words[0]
        var rest = Array(words.dropFirst())
        if command == "scene" {
            guard let verb = rest.first, ["push", "pop", "present", "dismiss"].contains(verb) else {
                throw ValidationError("scene takes push NAME, pop, present NAME or dismiss")
            }
            command = "scene-\(verb)"
            rest.removeFirst()
        }
        // The touch check's tap takes its point as words of its argument.
        if command == "touch-check", rest.count > 1 { rest = [rest.joined(separator: " ")] }
        if rest.count > 1 { throw ValidationError("too many arguments for \(command)") }
        return ControlRequestLine(command: command, argument: rest.first).line
    }

    /// Writes the PNG of a screenshot reply to `out` (then says what was written) or to standard
    /// output; a refusal is printed as the reply and exits 1.
    static func save(screenshot reply: String, to out: String?) throws {
        guard let r = ControlReply(line: reply), r.ok, let shot = r.screenshot, let png = Data(base64Encoded: shot.png)
        else {
            print(reply)
            throw ExitCode(1)
        }
        guard let out else {
            if let why = writeAll(1, [UInt8](png)) { throw CLIFailure("standard output: \(why)") }
            return
        }
        guard FileManager.default.createFile(atPath: out, contents: png) else {
            throw CLIFailure("cannot write \(out): \(String(cString: strerror(errno)))")
        }
        print(JSONLine.encode(ScreenshotSaved(out: out, bytes: png.count, source: shot.source)))
    }

    func run() throws {
        let path = socket ?? findControlSocket()
        if socket == nil, !FileManager.default.fileExists(atPath: path) {
            throw CLIFailure(
                "no running `upright play` found: no control socket at "
                    + controlSocketCandidates().joined(separator: ", ") + " (--socket names another)")
        }
        let reply: String
        do {
            reply = try ControlClient.send(try Self.request(words), to: path)
        } catch let e as ControlError {
            throw CLIFailure(e.description)
        }
        if words.first == "screenshot" {
            try Self.save(screenshot: reply, to: out)
            return
        }
        print(reply)
        // Any reply that does not say `"ok": true` is a failure.
        if ControlReply(line: reply)?.ok != true { throw ExitCode(1) }
    }
}
