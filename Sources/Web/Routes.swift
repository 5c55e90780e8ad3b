import Config
import Diagnostics
import Files
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrientationCore
import ServiceLifecycle
import Settings
import Wire

extension WebPage {
    func addRoutes(to router: Router<PageContext>) {
        router.get("/login") { request, _ in loginPage(.ok, for: request) }
        router.post("/login") { request, context in try await login(request, context) }
        router.post("/logout") { request, context in
            if let token = context.session?.token { sessions.withLock { $0.close(token) } }
            var response = Response(status: .seeOther, headers: [.location: "/login"])
            response.setCookie(
                Cookie(
                    name: Self.cookie, value: "", maxAge: 0, path: "/", secure: secureCookies(request), httpOnly: true,
                    sameSite: .strict))
            return response
        }
        let choices: [Action.Argument: [String]] = [
            .orientation: InterfaceOrientation.allCases.map(\.name), .scene: backend.scenes, .clip: backend.clips,
            .onOff: ["on", "off"], .percent: stride(from: 0, through: 100, by: 10).map(String.init),
        ]
        router.get("/") { _, context in
            Response.html(.ok, Pages.main(csrf: context.session?.csrf ?? "", device: backend.device, choices: choices))
        }
        router.get("/static/page.css") { _, _ in Self.asset(Pages.css, "text/css; charset=utf-8") }
        router.get("/static/page.js") { _, _ in Self.asset(Pages.script, "text/javascript; charset=utf-8") }
        router.get("/static/login.js") { _, _ in Self.asset(Pages.loginScript, "text/javascript; charset=utf-8") }

        router.get("/api/status") { _, _ in
            Self.reply(await backend.request(ControlRequestLine(command: "status").line))
        }
        router.get("/api/events") { _, _ in events() }
        router.post("/api/action") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let line = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.contains("\n") else {
                return Response.json(.badRequest, #"{"ok": false, "error": "one JSON object on one line"}"#)
            }
            return Self.reply(await backend.request(line))
        }
        router.get("/api/screenshot.png") { _, _ in try await screenshot() }
        router.get("/metrics") { _, _ in
            guard let metrics = backend.metrics else { return Response.text(.notFound, "no metrics in this session\n") }
            return Response.text(.ok, metrics(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        addContentRoutes(to: router)
        addConfigurationRoutes(to: router)
    }

    /// A control reply as the page answers it: 200 when it is `ok`, else 422; its line with a URL's
    /// secrets masked, as the control socket writes it.
    static func reply(_ reply: ControlReply) -> Response {
        Response.json(reply.ok ? .ok : .unprocessableContent, Redact.text(reply.line))
    }

    static func asset(_ text: String, _ type: String) -> Response {
        var r = Response.text(.ok, text, type: type)
        r.headers[.cacheControl] = "no-cache"
        return r
    }

    /// The log-in page with a CSRF token of its own: in the form, and in a cookie for `/login`
    /// only (a log-in forged by another site would lack it).
    func loginPage(_ status: HTTPResponse.Status, message: String? = nil, for request: Request) -> Response {
        let token = Self.token()
        var response = Response.html(status, Pages.login(message: message, token: token))
        response.setCookie(
            Cookie(
                name: Self.loginCookie, value: token, path: "/login", secure: secureCookies(request), httpOnly: true,
                sameSite: .strict))
        return response
    }

    static let loginCookie = "upright_login"

    /// A log-in: the password checked against the hash unless this client has had too many wrong
    /// ones in the last minute (429 then, without checking). The password is never logged. The
    /// form's token must match its cookie when it is sent, and a browser (it says `Origin` or
    /// `Sec-Fetch-*`) must send it; a script that posts the password alone needs none.
    func login(_ request: Request, _ context: PageContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 16 * 1024)
        let form = Self.form(String(buffer: body))
        let browser = request.headers[.origin] != nil || request.headers[.secFetchSite] != nil
        if form["csrf"] != nil || browser,
            !Secret.same(form["csrf"], request.cookies[Self.loginCookie]?.value ?? "\u{0}")
        {
            return loginPage(.forbidden, message: "The log-in form had expired. Log in again.", for: request)
        }
        let admitted = now
        switch sessions.withLock({ $0.admit(context.client, now: admitted) }) {
        case .wait(let seconds):
            logger.warning("web: log-in refused from \(context.client): too many wrong passwords")
            var r = loginPage(
                .tooManyRequests, message: "Too many wrong passwords. Try again in \(seconds) s.", for: request)
            r.headers[.retryAfter] = String(seconds)
            return r
        case .check:
            break
        }
        switch await verify(form["password"] ?? "") {
        case .right: break
        case .busy:
            sessions.withLock { $0.succeeded(context.client, admittedAt: admitted) }  // not a wrong one
            var r = loginPage(.tooManyRequests, message: "Too many log-ins at once. Try again.", for: request)
            r.headers[.retryAfter] = "1"
            return r
        case .wrong:
            logger.warning("web: a wrong password from \(context.client)")
            return loginPage(.unauthorized, message: "Wrong password.", for: request)
        }
        sessions.withLock { $0.succeeded(context.client, admittedAt: admitted) }
        logger.info("web: logged in from \(context.client)")
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(sessionCookie(open(), for: request))
        return response
    }

    /// `application/x-www-form-urlencoded` fields.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first { fields[key] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    /// The status as server-sent events: one `status` event at once, then one each time it
    /// changes (looked at every second), a comment every 15 s to keep proxies from closing it.
    func events() -> Response {
        let backend = backend
        var response = Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: .init { writer in
                // The session pushes its status as it changes, and every 15 s: a line that did not
                // change is a comment, which keeps proxies from closing the stream.
                let updates =
                    backend.statusUpdates?()
                    ?? AsyncStream { continuation in
                        Task {
                            continuation.yield(Redact.text(await backend.request(#"{"command": "status"}"#).line))
                            continuation.finish()
                        }
                    }
                // Ended by the server's graceful shutdown, or by the session's end.
                let (lines, end) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
                let relay = Task {
                    for await reply in updates { end.yield(reply) }
                    end.finish()
                }
                defer { relay.cancel() }
                var last = ""
                try await withGracefulShutdownHandler {
                    for await reply in lines {
                        guard reply != last else {
                            try await writer.write(ByteBuffer(string: ": still here\n\n"))
                            continue
                        }
                        last = reply
                        try await writer.write(
                            ByteBuffer(string: "event: status\ndata: \(reply.trimmingCharacters(in: .newlines))\n\n"))
                    }
                } onGracefulShutdown: {
                    end.finish()
                }
                try await writer.finish(nil)
            })
        response.headers[.init("X-Accel-Buffering")!] = "no"
        return response
    }

    /// The screen as a PNG, from the session's screenshot.
    func screenshot() async throws -> Response {
        let reply = await backend.request(#"{"command": "screenshot"}"#)
        guard reply.ok, let shot = reply.screenshot, let png = Data(base64Encoded: shot.png) else {
            return Response.text(.serviceUnavailable, "no screenshot: \(reply.error ?? "no reply")\n")
        }
        return Response(
            status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: png)))
    }
}

/// A diagnostic as the page shows it, at its line and column.
struct DiagnosticJSON: Codable {
    var file: String
    var line: Int?
    var column: Int?
    var severity: String
    var message: String

    init(_ d: Diagnostic) {
        file = d.file
        line = d.line
        column = d.column
        severity = d.severity.rawValue
        message = d.message
    }
}

extension WebPage {
    static func encoded(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }

    static func failure(_ status: HTTPResponse.Status, _ message: String) -> Response {
        struct Failure: Encodable {
            let ok = false
            let error: String
        }
        return .json(status, encoded(Failure(error: message)))
    }

    /// A schedule in words: `mon, tue 07:00–22:00`; `always` for none.
    static func words(_ schedule: Schedule?) -> String {
        guard let schedule else { return "always" }
        let days = schedule.days.sorted().map { Schedule.dayNames[$0 - 1] }.joined(separator: ", ")
        let window = schedule.from.map { from in "\(Schedule.text(from))–\(Schedule.text(schedule.until ?? 1440))" }
        return [days, window ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
    }

    func addContentRoutes(to router: Router<PageContext>) {
        router.get("/api/playlist") { _, _ in
            struct Entry: Encodable {
                let entry: String
                let schedule: String
                let now: Bool
            }
            let (weekday, minute, _) = LocalTime.now()
            let entries = backend.playlist.map {
                Entry(
                    entry: $0.entry, schedule: Self.words($0.schedule),
                    now: $0.schedule?.isActive(weekday: weekday, minute: minute) ?? true)
            }
            return Response.json(.ok, Self.encoded(entries))
        }
        router.get("/api/content") { _, _ in
            struct Listing: Encodable {
                let folder: String?
                let maxBytes: Int?
                let extensions: [String]
                let items: [ContentFolder.Item]
            }
            let folder = backend.content
            return Response.json(
                .ok,
                Self.encoded(
                    Listing(
                        folder: folder?.path, maxBytes: folder?.maxBytes, extensions: ContentFolder.extensions,
                        items: folder?.list() ?? [])))
        }
        router.post("/api/upload") { request, context in
            guard let folder = backend.content else {
                return Self.failure(.notFound, "no upload folder: set [web] uploads, or put a folder in the playlist")
            }
            let name = request.uri.queryParameters.get("name") ?? ""
            let length = request.headers[.contentLength].flatMap { Int($0) }
            switch await folder.receive(name: name, length: length, body: request.body) {
            case .success(let bytes):
                logger.notice("web: \(name) uploaded into \(folder.path) (\(bytes) bytes) from \(context.client)")
                struct Uploaded: Encodable {
                    let ok = true
                    let name: String
                    let bytes: Int
                }
                return Response.json(.created, Self.encoded(Uploaded(name: name, bytes: bytes)))
            case .failure(let e):
                logger.warning("web: an upload from \(context.client) refused: \(e.message)")
                return Self.failure(e.status, e.message)
            }
        }
        router.post("/api/delete") { request, context in
            guard let folder = backend.content else { return Self.failure(.notFound, "no upload folder") }
            let name = request.uri.queryParameters.get("name") ?? ""
            if let why = folder.delete(name: name) { return Self.failure(.unprocessableContent, why) }
            logger.notice("web: \(name) deleted from \(folder.path) by \(context.client)")
            return Response.json(.ok, #"{"ok": true}"#)
        }
    }

    /// The configuration's answer to a check or a save: its diagnostics, and after a save the reload's words.
    struct Checked: Encodable {
        let ok: Bool
        let diagnostics: [DiagnosticJSON]
        var reload: String?
        var error: String?
    }

    func addConfigurationRoutes(to router: Router<PageContext>) {
        router.get("/api/config") { _, _ in
            guard let file = backend.configuration else {
                return Self.failure(.notFound, "this session was started without a configuration file")
            }
            struct Shown: Encodable {
                let path: String
                let text: String
            }
            guard let text = try? String(contentsOfFile: file.path, encoding: .utf8) else {
                return Self.failure(
                    .serviceUnavailable, "cannot read \(file.path): \(readProblem(file.path) ?? "not UTF-8 text")")
            }
            return Response.json(.ok, Self.encoded(Shown(path: file.path, text: ConfigurationFile.masked(text))))
        }
        for (path, saves) in [("/api/config/check", false), ("/api/config", true)] {
            router.post(RouterPath(stringLiteral: path)) { request, context in
                guard let file = backend.configuration else {
                    return Self.failure(.notFound, "this session was started without a configuration file")
                }
                let posted = String(buffer: try await request.body.collect(upTo: 512 * 1024))
                return await checkOrSave(posted, file: file, saves: saves, from: context.client)
            }
        }
    }

    /// A configuration posted from the page: its masked secrets put back, what the page may not
    /// change refused first (alone: the check of a path it may not name would say whether that
    /// path exists), then checked, and with `saves` written and applied.
    func checkOrSave(_ posted: String, file: ConfigurationFile, saves: Bool, from client: String) async -> Response {
        let current = (try? String(contentsOfFile: file.path, encoding: .utf8)) ?? ""
        let text: String
        switch ConfigurationFile.unmasked(posted, current: current) {
        case .success(let t): text = t
        case .failure(let changed):
            let diagnostics = changed.lines.map {
                Diagnostic(
                    file: file.path, line: $0, column: 1, severity: .error,
                    message: "a hidden secret (\(Redact.mask)) on a changed line: type the secret again")
            }
            return Response.json(
                .unprocessableContent,
                Self.encoded(Checked(ok: false, diagnostics: diagnostics.map(DiagnosticJSON.init))))
        }
        let refused =
            settings.editAll
            ? []
            : PageEdit.refusals(posted: text, current: current, file: file.path, uploads: backend.content?.path ?? "")
        let diagnostics = refused.isEmpty ? file.check(text) : refused
        let errors = diagnostics.filter { $0.severity == .error }
        var answer = Checked(ok: errors.isEmpty, diagnostics: diagnostics.map(DiagnosticJSON.init))
        guard saves, errors.isEmpty else {
            return Response.json(errors.isEmpty ? .ok : .unprocessableContent, Self.encoded(answer))
        }
        if let why = file.save(text) {
            return Response.json(
                .serviceUnavailable, Self.encoded(Checked(ok: false, diagnostics: answer.diagnostics, error: why)))
        }
        logger.notice("web: \(file.path) saved from \(client); reloading")
        answer.reload = await file.reload()
        return Response.json(.ok, Self.encoded(answer))
    }
}
