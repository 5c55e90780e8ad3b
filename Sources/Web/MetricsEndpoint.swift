public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore

/// `/metrics` on a listener of its own (`[metrics] listen`), for a Prometheus server to scrape:
/// Hummingbird, with the page's limits (``ListenerLimits``); anything else is 404, and a request
/// with a body is refused.
public enum MetricsEndpoint {
    /// The application; `running` is told the port it listens on (the system's choice for port 0).
    public static func application(
        host: String, port: Int, limits: ListenerLimits = ListenerLimits(), text: @escaping @Sendable () -> String,
        logger: Logger, running: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.on("/metrics", method: .get) { _, _ in scrape(text()) }
        router.on("/metrics", method: .head) { _, _ in scrape("") }
        router.on("**", method: .get) { _, _ in Response.text(.notFound, "Upright serves /metrics only\n") }
        return Application(
            router: router, server: .limited(limits, connections: Connections(limit: limits.connections)),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { running($0.localAddress?.port ?? port) }, logger: logger)
    }

    static func scrape(_ text: String) -> Response {
        .text(.ok, text, type: "text/plain; version=0.0.4; charset=utf-8")
    }
}
