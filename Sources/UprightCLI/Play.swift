import ArgumentParser
import Config
import UprightDaemon

/// `upright play [FILES...]`: the main job, sensor → policy → player.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the playlist (or FILES), keeping the picture the right way up.",
        discussion: """
            Each decision prints as a JSON line (as the dry run's); sensor status and faults go to \
            standard error. SIGINT and SIGTERM stop it.
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

    func run() async throws {
        var configuration: UprightConfiguration
        do {
            configuration = try UprightConfiguration.locate(explicit: config)
        } catch {
            throw CLIFailure(diagnostic: error.description)
        }
        for w in configuration.warnings { writeStandardError("\(w)\n") }
        if let uri { configuration.sensor.uri = uri }
        var extra: [(String, String)] = []
        if let vo { extra.append(("vo", vo)) }
        let session: PlaySession
        do {
            session = try PlaySession(
                configuration: configuration, playlist: files, extraMPV: extra,
                log: { writeLine($0) }, status: { writeStandardError("upright: \($0)\n") })
        } catch {
            throw CLIFailure("cannot start: \(error)")
        }
        let (stop, continuation) = AsyncStream.makeStream(of: Void.self)
        let waiter = Task {
            await waitForStop(duration: duration)
            continuation.yield()
        }
        try await session.run(until: stop)
        waiter.cancel()
    }
}
