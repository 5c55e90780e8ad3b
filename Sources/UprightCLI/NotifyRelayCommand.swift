import ArgumentParser
import Glibc
import Systemd

/// `upright notify-relay COMMAND [ARGS...]`: the main process of a unit with `PAMName=` (the
/// packaged sway and cage units), whose compositor's child `upright play` would not be heard by
/// the service manager on its own (``NotifyRelay``).
struct NotifyRelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify-relay",
        abstract: "Run a command and pass its service notifications on to systemd as this process's.",
        discussion: """
            For a unit of Type=notify with PAMName= (the packaged upright-sway and upright-cage \
            units): logind moves the unit's processes into the login session's scope, where \
            systemd no longer takes their READY=1 and watchdog keep-alives for the unit's. The \
            relay, as the unit's main process, starts COMMAND with NOTIFY_SOCKET naming a socket \
            of its own and sends on what arrives there; it passes SIGTERM, SIGINT, SIGHUP, \
            SIGQUIT, SIGUSR1 and SIGUSR2 on to its process group (to COMMAND alone when it leads \
            none) and exits with COMMAND's status, or ends by the signal that ended COMMAND. \
            Without NOTIFY_SOCKET it only runs COMMAND.
            """)

    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments (looked up in PATH).")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("name the command to run") }
    }

    func run() throws {
        let status: Int32
        do {
            status = try NotifyRelay.run(command) { writeStandardError("upright: notify-relay: \($0)\n") }
        } catch {
            throw CLIFailure("notify-relay: \(error)")
        }
        Glibc.exit(status)
    }
}
