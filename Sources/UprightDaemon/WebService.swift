public import Config
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Web

extension WebSettings {
    /// The page's address as a browser on another machine writes it (`http://HOST:PORT/`): the
    /// host's name for a wildcard listener.
    public var pageURL: String? {
        guard let listen else { return nil }
        var host = listen.host
        if host == "0.0.0.0" || host == "::" {
            host = machineName
        } else if host.contains(":") {
            host = "[\(host)]"
        }
        return "\(certificate.isEmpty ? "http" : "https")://\(host):\(listen.port)/"
    }
}

/// The operator's page, served until the group shuts down. An address that cannot be bound, or a
/// password file that cannot be read, is logged and tried again every 10 s; playback never waits.
struct WebService: Service {
    let settings: WebSettings
    let backend: WebBackend
    let logger: Logger

    func run() async throws {
        guard let listen = settings.listen else { return }
        var said: String?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let page = try WebPage(settings: settings, backend: backend, logger: logger)
                let app = try page.application(host: listen.host, port: listen.port) { port in
                    let url = (settings.pageURL ?? "").replacingOccurrences(of: ":\(listen.port)/", with: ":\(port)/")
                    let note = settings.auth == .none ? " (no password: loopback only)" : ""
                    logger.info("web: the operator's page on \(url)\(note)")
                }
                try await app.run()
                return
            } catch {
                let why = "\(error)"
                if why != said {
                    logger.error(
                        "web: cannot serve the page on \(listen.host):\(listen.port): \(why); trying again every 10 s")
                }
                said = why
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(10)) }
            }
        }
    }
}
