import Foundation

/// Where and how to reach the broker.
public struct MQTTEndpoint: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, with `caFile` (the system's CAs when `nil`).
    public var tls: Bool
    public var caFile: String?
    public var username: String?
    public var password: String?

    public init(
        host: String, port: Int, tls: Bool = false, caFile: String? = nil, username: String? = nil,
        password: String? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
        self.username = username
        self.password = password
    }

    /// Parses `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883); the reason when it cannot.
    public static func parse(_ url: String) -> Result<MQTTEndpoint, MQTTError> {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") {
            (tls, rest) = (false, url.dropFirst(7))
        } else if url.hasPrefix("mqtts://") {
            (tls, rest) = (true, url.dropFirst(8))
        } else {
            return .failure(
                MQTTError("'\(url)' is not an MQTT URL; expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"))
        }
        var hostPort = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        // Credentials in the URL (`mqtt://user:password@host`), percent-decoded.
        var credentials: (user: String, password: String?)?
        if let at = hostPort.lastIndex(of: "@") {
            let userinfo = hostPort[..<at]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            credentials = (parts[0], parts.count > 1 ? parts[1] : nil)
            hostPort = String(hostPort[hostPort.index(after: at)...])
        }
        var host = hostPort, port = tls ? 8883 : 1883
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            guard let p = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(p) else {
                return .failure(MQTTError("'\(url)' has no valid port (1 to 65535)"))
            }
            host = String(hostPort[..<colon])
            port = p
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return .failure(MQTTError("'\(url)' names no host")) }
        var endpoint = MQTTEndpoint(host: host, port: port, tls: tls)
        if let credentials {
            guard !credentials.user.isEmpty else {
                return .failure(MQTTError("'\(Redact.url(url))' has a password but no user name before it"))
            }
            (endpoint.username, endpoint.password) = (credentials.user, credentials.password)
        }
        return .success(endpoint)
    }
}

/// An MQTT failure, in libmosquitto's words.
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
