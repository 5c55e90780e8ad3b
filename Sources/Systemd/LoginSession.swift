import CSystemd
import Glibc

/// The logind session a process belongs to (greetd's, a unit's with `PAMName=`), read through
/// sd-login: a session whose leader has gone is `closing` while processes of it remain, and gone
/// once they have.
public struct LoginSession: Sendable, Hashable {
    public let id: String

    /// The calling process's session, or `nil` outside one (no logind, a service without PAM).
    public static var current: LoginSession? {
        var session: UnsafeMutablePointer<CChar>?
        guard sd_pid_get_session(0, &session) >= 0, let session else { return nil }
        defer { free(session) }
        return LoginSession(id: String(cString: session))
    }

    public init(id: String) { self.id = id }

    /// `online`, `active`, `closing`; `nil` when logind no longer knows it.
    public var state: String? {
        var state: UnsafeMutablePointer<CChar>?
        guard sd_session_get_state(id, &state) >= 0, let state else { return nil }
        defer { free(state) }
        return String(cString: state)
    }

    /// Whether the session has ended (its leader gone, or the session itself).
    public var hasEnded: Bool { state.map { $0 == "closing" } ?? true }
}
