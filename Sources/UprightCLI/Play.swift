import ArgumentParser
import Config
import Control
import Foundation
import Glibc
import Logging
import MPV
import Sensors
import Session
import UprightDaemon
import Wire

/// `upright play [FILES...]`: the main job, sensor → policy → player and display, as services.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the playlist (or FILES), keeping the picture the right way up.",
        discussion: """
            Each decision prints as a JSON line (as the dry run's); sensor, display and service \
            messages go to standard error. SIGINT and SIGTERM stop it gracefully and put the output's \
            transform back; SIGHUP reads the configuration again. `upright ctl` talks to it through \
            its control socket ($XDG_RUNTIME_DIR/upright/control.sock).
            """)

    @Argument(help: "Files or URLs to play instead of the configuration's playlist.")
    var files: [String] = []
    @Option(help: "The configuration file (default: the search order of check-config).")
    var config: String?
    @Option(help: "Sensor URI, over the configuration's.")
    var uri: String?
    @Option(help: "mpv's video output, over the configuration's (null plays headless).")
    var vo: String?
    @Option(help: "Stop after this many seconds.")
    var duration: Double?
    @Option(help: "The control socket's path (default: $XDG_RUNTIME_DIR/upright/control.sock).")
    var control: String?
    @Flag(help: "Open no control socket.")
    var noControl = false

    func run() async throws {
        // SIGHUP's default ends the process: until the reloader traps it, one that comes early (a
        // `systemctl reload` during start-up) is ignored; the configuration is read at start anyway.
        signal(SIGHUP, SIG_IGN)
        // mpv's process loads libmpv while the configuration is read and the display found (forked
        // by `main` already, unless `play` was not the first argument).
        if !MPVHandle.hasProcessAhead { MPVHandle.startProcessAhead() }
        var configuration = try locateConfiguration(config)
        let uri = try uri.map(parseSensorURI)
        let overrides: @Sendable (inout UprightConfiguration) -> Void = { c in
            if let uri { c.sensor.uri = uri }
        }
        overrides(&configuration)
        var extra: [(String, String)] = []
        if let vo { extra.append(("vo", vo)) }
        let logger = Logger(label: "upright")
        let session: PlaySession
        do {
            session = try PlaySession(
                configuration: configuration, playlist: files, extraMPV: extra,
                log: { writeLine($0.jsonLine(time: $0.millisecondsText)) }, logger: logger)
        } catch {
            throw CLIFailure("cannot start: \(error)")
        }
        do {
            try await PlayServices.run(
                session: session, configurationPath: config ?? configuration.file,
                controlPath: noControl ? nil : (control ?? controlSocketPath()), duration: duration,
                metrics: configuration.metrics, mqtt: configuration.mqtt,
                clips: configuration.policy.scenes.values.filter { $0.clip != nil }.map(\.name).sorted(),
                web: configuration.web,
                page: PageContent(
                    configurationFile: config ?? configuration.file, uploads: configuration.uploadFolder,
                    scenes: configuration.policy.scenes.values.filter { $0.clip == nil }.map(\.name).sorted(),
                    playlist: configuration.player.playlist.map { ($0, configuration.player.itemOptions[$0]?.schedule) }
                ),
                logger: logger,
                overrides: overrides)
        } catch {
            await session.close()  // the session may not have run: mpv must still end before the process
            if let e = error as? ControlError { throw CLIFailure("\(e)") }
            if let e = error as? SessionFailure { throw CLIFailure("\(e)") }
            if let e = error as? MPVError { throw CLIFailure("cannot start: \(e)") }  // mpv's own start
            throw error
        }
    }
}
