public import ArgumentParser
import Session
import Wire

/// The `upright` command line: the root command and its subcommands.
public struct Upright: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "upright",
        abstract: "A kiosk and tablet video player that keeps the picture the right way up.",
        version: ProgramVersion.text,
        subcommands: [
            Play.self, Replay.self, Demo.self, SensorCommand.self, RecordCommand.self, DoctorCommand.self,
            CheckConfig.self, CheckSMIL.self, Ctl.self, HealthCommand.self, TouchCheckCLI.self, WebPasswordCommand.self,
            NotifyRelayCommand.self,
        ]
    )

    public init() {}
}
