public import Config
import Control
import Fleet
import Foundation
public import Logging
public import OrientationCore
import ServiceLifecycle
import Systemd
import UnixSignals
import UprightMetrics
import Web

/// `upright play` as services in one group: the session, the control socket and the SIGHUP
/// reloader. SIGTERM and SIGINT shut the group down gracefully (the session restores the output
/// and quits mpv); the session ending (mpv shut down, or `duration` passed) ends the group.
public enum PlayServices {
    /// Runs the group until a signal, the duration, or mpv shutting down.
    ///
    /// - Parameters:
    ///   - configurationPath: the file SIGHUP reads again (`nil`: the search order).
    ///   - controlPath: the control socket, or `nil` for none.
    ///   - overrides: what the command line sets over every configuration read, the reloaded ones too.
    public static func run(
        session: PlaySession, configurationPath: String?, controlPath: String?, duration: Double?,
        metrics: MetricsSettings = MetricsSettings(), mqtt: MQTTSettings = MQTTSettings(), clips: [String] = [],
        web: WebSettings = WebSettings(), page: PageContent = PageContent(), logger: Logger,
        overrides: @escaping @Sendable (inout UprightConfiguration) -> Void = { _ in }
    ) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: SessionService(session: session, duration: duration),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup,
                serviceName: "session")
        ]
        if let controlPath {
            let shared = controlSocketIsShared(controlPath)
            let server = try await ControlServer(
                path: controlPath, group: shared, logger: logger,
                refusing: { pid in session.mpvHandle.processID == pid ? "mpv's process" : nil }
            ) { line in await session.control(line) }
            services.append(.init(service: ControlService(server: server), serviceName: "control"))
            logger.info("control socket: \(controlPath)\(shared ? " (for its group too)" : "")")
        }
        if let path = metrics.textfile {
            services.append(
                .init(
                    service: TextfileService(
                        metrics: session.metrics, path: path, interval: metrics.interval, logger: logger),
                    successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore,
                    serviceName: "metrics-textfile"))
            logger.info("metrics: written to \(path) every \(metrics.interval.fixed(0)) s")
        }
        if let listen = metrics.listen {
            services.append(
                .init(
                    service: MetricsService(
                        metrics: session.metrics, host: listen.host, port: listen.port, logger: logger),
                    successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore,
                    serviceName: "metrics-http"))
        }
        if !mqtt.url.isEmpty {
            services.append(
                .init(
                    service: MQTTService(
                        session: session, settings: mqtt, clips: clips, pageURL: web.pageURL, logger: logger),
                    successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "mqtt"))
        }
        let reloader = ReloadService(session: session, path: configurationPath, logger: logger, overrides: overrides)
        if web.listen != nil {
            let backend = WebBackend(
                request: { line in await session.reply(to: line) },
                statusUpdates: { session.statusLines() }, metrics: { session.metrics.text },
                content: page.uploads.map { ContentFolder(path: $0, maxBytes: Int(web.uploadMaxMB * 1_048_576)) },
                configuration: page.configurationFile.map {
                    ConfigurationFile(path: $0, reload: { await reloader.reload() })
                },
                device: mqtt.device, scenes: page.scenes, clips: clips, playlist: page.playlist)
            services.append(
                .init(
                    service: WebService(settings: web, backend: backend, logger: logger),
                    successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "web"))
        }
        if let timeout = ServiceManager.watchdogTimeout {
            services.append(
                .init(service: WatchdogService(session: session, interval: timeout / 2), serviceName: "watchdog"))
            logger.info("systemd watchdog: a keep-alive every \((timeout / 2).seconds.fixed(1)) s")
        }
        services.append(.init(service: reloader, serviceName: "reload"))
        let configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
    }
}

/// What the operator's page edits: the configuration file, the folder uploads go to, and the
/// scenes its controls offer.
public struct PageContent: Sendable {
    public var configurationFile: String?
    public var uploads: String?
    public var scenes: [String]
    /// The configured playlist's entries, each with when it may play.
    public var playlist: [(entry: String, schedule: Schedule?)]

    public init(
        configurationFile: String? = nil, uploads: String? = nil, scenes: [String] = [],
        playlist: [(entry: String, schedule: Schedule?)] = []
    ) {
        self.configurationFile = configurationFile
        self.uploads = uploads
        self.scenes = scenes
        self.playlist = playlist
    }
}

/// The play session until a graceful shutdown or the duration.
struct SessionService: Service {
    let session: PlaySession
    let duration: Double?

    func run() async throws {
        let (stop, continuation) = AsyncStream.makeStream(of: Void.self)
        let timer = Task {
            guard let duration else { return }
            try? await Task.sleep(for: .seconds(duration))
            continuation.yield()
        }
        defer { timer.cancel() }
        try await withGracefulShutdownHandler {
            try await session.run(until: stop)
        } onGracefulShutdown: {
            continuation.yield()
        }
    }
}

/// The control socket, served until the group shuts down.
struct ControlService: Service {
    let server: ControlServer

    func run() async throws {
        server.start()
        try? await gracefulShutdown()
        server.stop()
    }
}

/// The systemd watchdog's keep-alive, at half its timeout, for as long as the session's loop
/// answers: a loop that hangs stops the keep-alive, and systemd restarts the process.
struct WatchdogService: Service {
    let session: PlaySession
    let interval: Duration

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            guard await session.currentStatus() != nil else { return }
            ServiceManager.keepAlive()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

/// Reads the configuration again on SIGHUP; a bad file leaves the running one and says why.
struct ReloadService: Service {
    let session: PlaySession
    let path: String?
    let logger: Logger
    let overrides: @Sendable (inout UprightConfiguration) -> Void

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            _ = await reload()
        }
    }

    /// Reads the configuration again and applies it; what happened, in words (the page shows it).
    func reload() async -> String {
        do {
            var new = try UprightConfiguration.locate(explicit: path)
            overrides(&new)
            for w in new.warnings { logger.warning("\(w)") }
            let notes = await session.reload(new)
            let said = "configuration reloaded from \(new.file ?? "the built-in defaults")"
            logger.notice("\(said)")
            for n in notes { logger.notice("\(n)") }
            return ([said] + notes).joined(separator: "; ")
        } catch {
            logger.error("reload refused, the running configuration stays:\n\(error.description)")
            return "reload refused, the running configuration stays: \(error.description)"
        }
    }
}
