import ArgumentParser
import Config

/// `upright check-config [FILE]`: the effective configuration, or every error with its place.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file and print the effective configuration, or its errors.",
        discussion: """
            Without FILE, the configuration Upright would use: $XDG_CONFIG_HOME/upright/upright.toml \
            (~/.config when unset), then /etc/upright/upright.toml, then the built-in defaults. Exit \
            status 0 when it can be used, 1 when it has errors.
            """)

    @Argument(help: "The configuration file to check.")
    var file: String?

    func run() throws {
        let configuration = try locateConfiguration(file)
        print(configuration.toml, terminator: "")
    }
}
