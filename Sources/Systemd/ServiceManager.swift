import CSystemd
import Glibc

/// The service manager's notification protocol, through libsystemd (`sd_notify(3)`): readiness,
/// a status line, and the watchdog's keep-alive. Outside systemd (no `NOTIFY_SOCKET`) every call
/// does nothing.
public enum ServiceManager {
    /// Whether a service manager listens (`NOTIFY_SOCKET` is set).
    public static var listens: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends `fields` (`READY=1`, `STATUS=...`, `WATCHDOG=1`) in one message; false when no service
    /// manager listens or it could not be reached. A value's line breaks become spaces: the
    /// protocol is one field per line.
    @discardableResult
    public static func notify(_ fields: KeyValuePairs<String, String>) -> Bool {
        let text = fields.map { "\($0.key)=\($0.value.split(whereSeparator: \.isNewline).joined(separator: " "))" }
        return sd_notify(0, text.joined(separator: "\n")) > 0
    }

    /// The process is up and doing its job (`READY=1`), with what it does now.
    @discardableResult
    public static func ready(status: String) -> Bool { notify(["READY": "1", "STATUS": status]) }

    /// What the process does now, for `systemctl status` (`STATUS=`).
    @discardableResult
    public static func status(_ text: String) -> Bool { notify(["STATUS": text]) }

    /// The watchdog's keep-alive (`WATCHDOG=1`).
    @discardableResult
    public static func keepAlive() -> Bool { notify(["WATCHDOG": "1"]) }

    /// How often the service manager wants the keep-alive at the least (`WatchdogSec=`, passed as
    /// `WATCHDOG_USEC` for this process), or `nil` when it does not watch.
    public static var watchdogTimeout: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }
}
