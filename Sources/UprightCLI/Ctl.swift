import ArgumentParser
import Foundation
import UprightDaemon

/// `upright ctl COMMAND`: one request to a running `upright play` over its control socket.
struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Control a running `upright play`: status, fullscreen, lock, unlock, rotate-to, ...",
        discussion: """
            Commands: status | fullscreen | lock | unlock | rotate-to ORIENTATION | accept-suggestion | \
            next | prev | scene push NAME | scene pop. The reply is one JSON line; the exit status is 1 \
            when the daemon answers with an error.
            """)

    @Option(help: "The control socket (default: $XDG_RUNTIME_DIR/upright/control.sock).")
    var socket: String?
    @Argument(help: "The command and its argument.")
    var words: [String] = []

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a command: \(ControlRequest.names.joined(separator: ", "))") }
    }

    /// The request line for the words given.
    static func request(_ words: [String]) throws -> String {
        var command = words[0]
        var rest = Array(words.dropFirst())
        if command == "scene" {
            guard let verb = rest.first, ["push", "pop"].contains(verb) else {
                throw ValidationError("scene takes push NAME or pop")
            }
            command = "scene-\(verb)"
            rest.removeFirst()
        }
        var object: [String: String] = ["command": command]
        if let argument = rest.first { object["argument"] = argument }
        if rest.count > 1 { throw ValidationError("too many arguments for \(command)") }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    func run() throws {
        let path = socket ?? controlSocketPath()
        let reply: String
        do {
            reply = try ControlClient.send(try Self.request(words), to: path)
        } catch let e as ControlError {
            throw CLIFailure(e.description)
        }
        print(reply)
        // Any reply that does not say `"ok": true` is a failure, however it is spaced.
        let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        if object?["ok"] as? Bool != true { throw ExitCode(1) }
    }
}
