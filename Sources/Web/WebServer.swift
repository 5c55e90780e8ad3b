public import Config
import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdBcrypt
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
public import OrientationCore
import Synchronization
public import Wire

/// What the page shows and does, given by the running session: the control socket's handler (a
/// request line in, a reply line out: the one vocabulary of actions), the screen's PNG, the
/// metrics' text, and the content and configuration the page edits.
public struct WebBackend: Sendable {
    /// The session's reply to a request line (the control socket's vocabulary), as a value.
    public var request: @Sendable (String) async -> ControlReply
    /// The status as reply lines, now and then as it changes (pushed by the session); without it
    /// the page's events send the status once a connection.
    public var statusUpdates: (@Sendable () -> AsyncStream<String>)?
    public var metrics: (@Sendable () -> String)?
    public var content: ContentFolder?
    public var configuration: ConfigurationFile?
    /// The screen's name (the page's title) and the arguments the controls offer.
    public var device: String
    public var scenes: [String]
    public var clips: [String]
    /// The configured playlist: each entry and when it may play.
    public var playlist: [(entry: String, schedule: Schedule?)]

    public init(
        request: @escaping @Sendable (String) async -> ControlReply,
        statusUpdates: (@Sendable () -> AsyncStream<String>)? = nil, metrics: (@Sendable () -> String)? = nil,
        content: ContentFolder? = nil, configuration: ConfigurationFile? = nil, device: String = "",
        scenes: [String] = [], clips: [String] = [], playlist: [(entry: String, schedule: Schedule?)] = []
    ) {
        self.playlist = playlist
        self.request = request
        self.statusUpdates = statusUpdates
        self.device = device
        self.scenes = scenes
        self.clips = clips
        self.metrics = metrics
        self.content = content
        self.configuration = configuration
    }
}

/// A request's context: the client's address (for the log-in limit) and its session.
public struct PageContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let client: String
    public var session: Sessions.Session?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Uploads are streamed to their file (``ContentFolder``), never collected: this bounds the
    /// bodies that are (a log-in form, an action, a configuration).
    public var maxUploadSize: Int { 1 << 20 }
}

/// The operator's page: Hummingbird on `[web] listen`, a log-in with the password's bcrypt hash (or
/// none on loopback, `auth = "none"`), sessions in HttpOnly SameSite=Strict cookies, a CSRF token on
/// every change, wrong passwords limited per client, TLS from certificate files.
public struct WebPage: Sendable {
    public static let cookie = "upright_session"
    let settings: WebSettings
    let hash: String?
    let backend: WebBackend
    let sessions = Locked(Sessions())
    /// The token of the one session `auth = "none"` gives every browser.
    let shared = Locked<String?>(nil)
    let logger: Logger
    let started = ContinuousClock.now
    /// What any client of the port is held to, and its connections now.
    let limits: ListenerLimits
    let connections: Connections

    /// Throws when the password file gives no hash (a configuration error normally catches it).
    public init(
        settings: WebSettings, backend: WebBackend, limits: ListenerLimits = ListenerLimits(), logger: Logger
    ) throws(WebError) {
        self.limits = limits
        connections = Connections(limit: limits.connections)
        self.settings = settings
        self.backend = backend
        self.logger = logger
        switch settings.auth {
        case .none:
            hash = nil
        case .password:
            switch WebPassword.hash(file: settings.passwordFile) {
            case .success(let h): hash = h
            case .failure(let p): throw WebError("the page's password file \(settings.passwordFile) \(p)")
            }
        }
    }

    var secure: Bool { !settings.certificate.isEmpty }
    var now: Double { (ContinuousClock.now - started) / .seconds(1) }

    /// The Hummingbird application, to run as a service of the session.
    /// `running` is told the port it listens on (the system's choice for port 0).
    public func application(host: String, port: Int, running: @escaping @Sendable (Int) -> Void = { _ in }) throws
        -> some ApplicationProtocol
    {
        let router = Router(context: PageContext.self)
        router.addMiddleware { SecurityHeaders() }
        router.addMiddleware { SessionGate(page: self) }
        addRoutes(to: router)
        var tls: TLSConfiguration?
        if secure {
            let chain = try NIOSSLCertificate.fromPEMFile(settings.certificate).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: settings.key, format: .pem)
            tls = .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        }
        return Application(
            router: router, server: .limited(limits, tls: tls, connections: connections),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { running($0.localAddress?.port ?? port) }, logger: logger)
    }

    // MARK: - Sessions

    static func token() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", g.next() as UInt64) }.joined()
    }

    func open() -> Sessions.Session {
        sessions.withLock { $0.open(token: Self.token(), csrf: Self.token(), now: now) }
    }

    /// With `auth = "none"`: one session for every browser (scripts without cookies would
    /// otherwise open one each and push a browser's out), made again once it has idled out.
    func sharedSession() -> Sessions.Session {
        shared.withLock { held in
            if let token = held, let s = sessions.withLock({ $0.use(token, now: now) }) { return s }
            let s = open()
            held = s.token
            return s
        }
    }

    func sessionCookie(_ s: Sessions.Session, for request: Request) -> Cookie {
        Cookie(
            name: Self.cookie, value: s.token, path: "/", secure: secureCookies(request), httpOnly: true,
            sameSite: .strict)
    }

    /// Whether a cookie for `request` is marked `Secure`: over TLS, and on a loopback name, which
    /// browsers (and curl) treat as a secure context over plain HTTP too; a LAN address over plain
    /// HTTP cannot keep a `Secure` cookie.
    func secureCookies(_ request: Request) -> Bool { secure || SessionGate.loopbackHost(request.head.authority) }

    /// What a password check found.
    enum Verdict { case right, wrong, busy }

    /// Whether `password` is the one whose hash the file holds (bcrypt, off the event loop),
    /// within the global limit of checks a second (``Sessions/checksPerSecond``: `.busy` past it).
    /// `basic`: an HTTP Basic password, taken without bcrypt while it is the one found right lately.
    func verify(_ password: String, basic: Bool = false) async -> Verdict {
        guard let hash else { return .right }
        let at = now
        if basic, sessions.withLock({ $0.isKnownBasic(password, now: at) }) { return .right }
        guard sessions.withLock({ $0.mayCheck(now: at) }) else { return .busy }
        let right = (try? await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }) ?? false
        if right, basic { sessions.withLock { $0.rememberBasic(password, now: at) } }
        return right ? .right : .wrong
    }
}

/// A value the page's requests share, behind a lock: the sessions, the shared session's token.
final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}

/// Why the page cannot be served, worded for the log.
public struct WebError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Headers every answer carries: the page's scripts and pictures only from itself, never framed,
/// nothing cached, no referrer.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = PageContext
    func handle(_ request: Request, context: PageContext, next: (Request, PageContext) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xFrameOptions] = "DENY"
        // Ignored by today's browsers (the CSP does the work); asked for by the scanners IT runs.
        response.headers[.xXSSProtection] = "1; mode=block"
        // A browser takes it over HTTPS only (the page's own TLS, or a proxy's), and ignores it
        // over plain HTTP: the page's name is then HTTPS-only for a year.
        response.headers[.strictTransportSecurity] = "max-age=31536000"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let xXSSProtection = Self("X-XSS-Protection")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let csrfToken = Self("X-CSRF-Token")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let xForwardedHost = Self("X-Forwarded-Host")!
}

/// No answer without a session, except the log-in page and its style: a browser asking for a page
/// gets the log-in page (401), anything else a 401. `/metrics` and the reading routes also take
/// HTTP Basic with the password (Prometheus's `basic_auth`). Every change (not GET or HEAD) needs
/// the session's CSRF token in `X-CSRF-Token`. With `auth = "none"` a session is opened for
/// whoever asks (loopback only), and the CSRF token is still required.
struct SessionGate: RouterMiddleware {
    typealias Context = PageContext
    let page: WebPage

    static let open: Set<String> = ["/login", "/static/page.css", "/static/login.js"]

    func handle(_ request: Request, context: PageContext, next: (Request, PageContext) async throws -> Response)
        async throws -> Response
    {
        let reading = request.method == .get || request.method == .head
        // With no password, only a loopback name reaches the page: a DNS name an attacker points
        // at 127.0.0.1 (DNS rebinding) does not.
        if page.hash == nil, !Self.loopbackHost(request.head.authority) {
            return .text(.misdirectedRequest, "with auth = \"none\" the page answers to a loopback address only\n")
        }
        // A change comes from the page itself, or from no browser at all (a script).
        if !reading, let foreign = Self.foreignOrigin(request) {
            return .text(.forbidden, "a change from another site (\(foreign.prefix(120))) is refused\n")
        }
        if Self.open.contains(request.uri.path) { return try await next(request, context) }
        var context = context
        let token = request.cookies[WebPage.cookie]?.value
        if let token, let s = page.sessions.withLock({ $0.use(token, now: page.now) }) {
            context.session = s
            if !reading && !Secret.same(request.headers[.csrfToken], s.csrf) {
                return .text(.forbidden, "a change needs the page's CSRF token (X-CSRF-Token); reload the page\n")
            }
            return try await next(request, context)
        }
        if page.hash == nil {
            let s = page.sharedSession()
            context.session = s
            guard reading else {
                return .text(.forbidden, "a change needs the page's CSRF token (X-CSRF-Token); reload the page\n")
            }
            var response = try await next(request, context)
            response.setCookie(page.sessionCookie(s, for: request))
            return response
        }
        if reading, let password = Self.basicPassword(request) {
            let admitted = page.now
            switch page.sessions.withLock({ $0.admit(context.client, now: admitted) }) {
            case .wait(let seconds):
                return .tooMany(seconds)
            case .check:
                switch await page.verify(password, basic: true) {
                case .right:
                    page.sessions.withLock { $0.succeeded(context.client, admittedAt: admitted) }
                    return try await next(request, context)
                case .busy:
                    page.sessions.withLock { $0.succeeded(context.client, admittedAt: admitted) }  // not a wrong one
                    return .tooMany(1)
                case .wrong: page.logger.warning("web: a wrong password from \(context.client) (HTTP Basic)")
                }
            }
        }
        if reading && (request.headers[.accept] ?? "").contains("text/html") {
            return page.loginPage(.unauthorized, for: request)
        }
        var response = Response.text(.unauthorized, "log in first: POST /login, or HTTP Basic with the password\n")
        response.headers[.wwwAuthenticate] = "Basic realm=\"Upright\", charset=\"UTF-8\""
        return response
    }

    /// Whether `authority` (a request's `Host`: a name or address, perhaps with a port) names
    /// a loopback address.
    static func loopbackHost(_ authority: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        return WebSettings.isLoopback(hostPart(authority))
    }

    /// `authority` without its port: `[::1]:8080` is `[::1]`, `127.0.0.1:8080` is `127.0.0.1`.
    static func hostPart(_ authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close])
        }
        if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") {
            return String(authority[..<colon])
        }
        return authority
    }

    /// What names another site as a change's origin: its `Origin` (unless `null`, which a browser
    /// sends for a form under `Referrer-Policy: no-referrer`), else its `Sec-Fetch-Site`; `nil`
    /// for the page itself or a client that is no browser (neither header).
    static func foreignOrigin(_ request: Request) -> String? {
        if let origin = request.headers[.origin], origin != "null" {
            // Behind a reverse proxy, the name the browser used is its X-Forwarded-Host (a header
            // no other site's page can make a browser send without the page's consent).
            let own = [request.head.authority, request.headers[.xForwardedHost]]
            return own.contains { sameOrigin(origin, $0) } ? nil : "Origin \(origin)"
        }
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none" {
            return "Sec-Fetch-Site \(site)"
        }
        return nil
    }

    /// Whether an `Origin` header names the page's own origin (its scheme's `//` and the request's `Host`).
    static func sameOrigin(_ origin: String, _ authority: String?) -> Bool {
        guard let authority, let slashes = origin.range(of: "://") else { return false }
        let scheme = origin[..<slashes.lowerBound].lowercased()
        return (scheme == "http" || scheme == "https")
            && origin[slashes.upperBound...].lowercased() == authority.lowercased()
    }

    /// The password of an `Authorization: Basic` header (any user name).
    static func basicPassword(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(value.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return String(text[text.index(after: colon)...])
    }
}

extension Response {
    static func text(_ status: HTTPResponse.Status, _ text: String, type: String = "text/plain; charset=utf-8")
        -> Response
    {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func html(_ status: HTTPResponse.Status, _ html: String) -> Response {
        text(status, html, type: "text/html; charset=utf-8")
    }

    static func json(_ status: HTTPResponse.Status, _ line: String) -> Response {
        text(status, line.hasSuffix("\n") ? line : line + "\n", type: "application/json")
    }

    static func tooMany(_ seconds: Int) -> Response {
        var r = text(.tooManyRequests, "too many wrong passwords from this address; try again in \(seconds) s\n")
        r.headers[.retryAfter] = String(seconds)
        return r
    }
}
