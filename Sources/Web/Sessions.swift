/// The page's log-ins as a value: sessions by token, each with its CSRF token and the time it was
/// last used, and the wrong passwords by client, for the rate limit. Times are given (seconds on a
/// monotonic clock); tokens are made by the caller, so tests choose them.
public struct Sessions: Sendable {
    public struct Session: Sendable, Hashable {
        public let token: String
        /// Every change (a POST) must carry it: another site's form cannot know it.
        public let csrf: String
        public var lastUsed: Double
    }

    /// What a log-in attempt may do now.
    public enum Admission: Sendable, Hashable {
        /// The password may be checked.
        case check
        /// Too many wrong passwords from this client in the window: 429, with the seconds to wait.
        case wait(seconds: Int)
    }

    /// A session unused this long is gone (seconds).
    public var idleLimit: Double = 12 * 3600
    /// Sessions kept at the most; the one unused longest makes room.
    public var limit = 32
    /// Wrong passwords allowed from one client within ``window`` seconds; the next attempt waits.
    public var allowedFailures = 5
    public var window: Double = 60

    private(set) var sessions: [String: Session] = [:]
    private var failures: [String: [Double]] = [:]

    public init() {}

    /// The session of `token`, now used, or `nil` (unknown or idle too long).
    public mutating func use(_ token: String, now: Double) -> Session? {
        guard var s = sessions[token] else { return nil }
        guard now - s.lastUsed <= idleLimit else {
            sessions[token] = nil
            return nil
        }
        s.lastUsed = now
        sessions[token] = s
        return s
    }

    /// Whether a log-in from `client` may have its password checked now. An admitted attempt
    /// counts as a wrong one until ``succeeded(_:admittedAt:)`` says otherwise, so that attempts
    /// sent at once, all checked before any is known wrong, are limited too.
    public mutating func admit(_ client: String, now: Double) -> Admission {
        let recent = (failures[client] ?? []).filter { now - $0 < window }
        failures[client] = recent.isEmpty ? nil : recent
        if recent.count >= allowedFailures, let oldest = recent.first {
            return .wait(seconds: max(1, Int((window - (now - oldest)).rounded(.up))))
        }
        failures[client, default: []].append(now)
        if failures.count > 1024, let stale = failures.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) }) {
            failures[stale.key] = nil  // a scan from many addresses cannot fill the memory
        }
        return .check
    }

    /// The attempt admitted at `time` had the right password: it is not counted.
    public mutating func succeeded(_ client: String, admittedAt time: Double) {
        guard var times = failures[client], let i = times.lastIndex(of: time) else { return }
        times.remove(at: i)
        failures[client] = times.isEmpty ? nil : times
    }

    /// A new session after a right password (or for `auth = "none"`).
    public mutating func open(token: String, csrf: String, now: Double) -> Session {
        sessions = sessions.filter { now - $0.value.lastUsed <= idleLimit }
        while sessions.count >= limit, let oldest = sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
            sessions[oldest.token] = nil
        }
        let s = Session(token: token, csrf: csrf, lastUsed: now)
        sessions[token] = s
        return s
    }

    public mutating func close(_ token: String) { sessions[token] = nil }

    /// bcrypt runs `checksPerSecond` times a second at most, with bursts of `checkBurst`, whoever
    /// asks (a token bucket): each check costs tens to hundreds of milliseconds of a core, and
    /// many addresses (or one, within ``admit(_:now:)``'s limit) must not pin the machine.
    public var checksPerSecond = 2.0
    public var checkBurst = 8.0
    private var bucket: (tokens: Double, at: Double)?
    /// The HTTP Basic password last found right, and until when it is taken without bcrypt.
    private var knownBasic: (password: String, until: Double)?
    public var basicLifetime: Double = 3600

    /// Whether a password may be checked (bcrypt) now; the check is counted.
    public mutating func mayCheck(now: Double) -> Bool {
        let (tokens, at) = bucket ?? (checkBurst, now)
        let available = min(checkBurst, tokens + max(0, now - at) * checksPerSecond)
        guard available >= 1 else {
            bucket = (available, now)
            return false
        }
        bucket = (available - 1, now)
        return true
    }

    /// Whether `password` is the HTTP Basic password found right lately (compared in constant
    /// time): a scraper's every request then costs no bcrypt.
    public func isKnownBasic(_ password: String, now: Double) -> Bool {
        guard let known = knownBasic, now < known.until else { return false }
        return Secret.same(password, known.password)
    }

    public mutating func rememberBasic(_ password: String, now: Double) {
        knownBasic = (password, now + basicLifetime)
    }

    public var count: Int { sessions.count }
}

/// Secrets compared in a time that does not depend on where they differ.
public enum Secret {
    public static func same(_ given: String?, _ secret: String) -> Bool {
        let a = Array((given ?? "").utf8), b = Array(secret.utf8)
        var diff = a.count ^ b.count
        for i in 0..<max(a.count, b.count) {
            diff |= Int((i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0))
        }
        return given != nil && diff == 0
    }
}
