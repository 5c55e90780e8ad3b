import Config
import Foundation
import HTTPTypes
import HummingbirdBcrypt
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import Web
import Wire

/// The page's routes in process (HummingbirdTesting's router, no listener, no `upright play`):
/// the log-in and its form token, the session and its CSRF token, a change from another site,
/// the configuration shown without its secrets and a guarded key refused at its line.
@Suite("The page's routes, in process")
struct PageRoutesTests {
    static let password = "correct horse battery"

    /// A page with a password (bcrypt at its lowest cost), a configuration file, and a backend
    /// that answers every request line with `{"ok": true}`.
    struct Setup {
        let dir: String
        let page: WebPage

        init(configuration: String = "[player]\nplaylist = [\"/srv/media\"]\n") throws {
            dir = NSTemporaryDirectory() + "routes-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try (Bcrypt.hash(PageRoutesTests.password, cost: 4) + "\n").write(
                toFile: dir + "/pw", atomically: true, encoding: .utf8)
            try configuration.write(toFile: dir + "/u.toml", atomically: true, encoding: .utf8)
            var settings = WebSettings()
            settings.passwordFile = dir + "/pw"
            let backend = WebBackend(
                request: { _ in ControlReply(ok: true, message: "done") },
                configuration: ConfigurationFile(path: dir + "/u.toml", reload: { "reloaded" }), device: "kiosk")
            page = try WebPage(settings: settings, backend: backend, logger: Logger(label: "test"))
        }

        func run(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try await page.application(host: "127.0.0.1", port: 0).test(.router, test)
        }
    }

    static func form(_ fields: [String: String]) -> ByteBuffer {
        ByteBuffer(
            string: fields.map {
                "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            }.joined(separator: "&"))
    }

    static func cookie(_ response: TestResponse, _ name: String) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }?.split(separator: ";").first.map(
            String.init)
    }

    /// Logs in as a script does (the password alone); the session's cookie and CSRF token.
    static func logIn(_ client: any TestClientProtocol) async throws -> (cookie: String, csrf: String) {
        let login = try await client.execute(
            uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: form(["password": password]))
        #expect(login.status == .seeOther)
        let cookie = try #require(Self.cookie(login, "upright_session"))
        let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie, .accept: "text/html"])
        let html = String(buffer: page.body)
        let csrf = html.components(separatedBy: "name=\"csrf\" content=\"").dropFirst().first?.prefix { $0 != "\"" }
        return (cookie, String(csrf ?? ""))
    }

    @Test func aBrowsersLogInNeedsItsFormsToken() async throws {
        try await Setup().run { client in
            let form = try await client.execute(uri: "/login", method: .get)
            let html = String(buffer: form.body)
            let token = String(
                html.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "")
            let cookie = try #require(Self.cookie(form, "upright_login"))
            #expect(token.count == 64)
            let browser: HTTPFields = [
                .contentType: "application/x-www-form-urlencoded", HTTPField.Name("Sec-Fetch-Site")!: "same-origin",
                .cookie: cookie,
            ]
            let without = try await client.execute(
                uri: "/login", method: .post, headers: browser, body: Self.form(["password": Self.password]))
            #expect(without.status == .forbidden)
            let with = try await client.execute(
                uri: "/login", method: .post, headers: browser,
                body: Self.form(["password": Self.password, "csrf": token]))
            #expect(with.status == .seeOther)
        }
    }

    @Test func aChangeNeedsTheSessionsTokenAndThePagesOwnOrigin() async throws {
        try await Setup().run { client in
            let (cookie, csrf) = try await Self.logIn(client)
            #expect(csrf.count == 64)
            let action = ByteBuffer(string: #"{"command": "fullscreen"}"#)
            let noToken = try await client.execute(
                uri: "/api/action", method: .post, headers: [.cookie: cookie], body: action)
            #expect(noToken.status == .forbidden)
            let token = HTTPField.Name("X-CSRF-Token")!
            let foreign = try await client.execute(
                uri: "/api/action", method: .post,
                headers: [.cookie: cookie, token: csrf, .origin: "http://evil.example"], body: action)
            #expect(foreign.status == .forbidden)
            let done = try await client.execute(
                uri: "/api/action", method: .post,
                headers: [.cookie: cookie, token: csrf, .origin: "http://localhost"],
                body: action)
            #expect(done.status == .ok)
        }
    }

    @Test func theConfigurationIsShownWithoutSecretsAndAGuardedKeyIsRefused() async throws {
        let file = "[mqtt]\nurl = \"mqtt://fleet:pw1@broker:1883\"\npassword = \"hunter2\"\n"
        try await Setup(configuration: file).run { client in
            let (cookie, csrf) = try await Self.logIn(client)
            let shown = try await client.execute(uri: "/api/config", method: .get, headers: [.cookie: cookie])
            let body = String(buffer: shown.body)
            #expect(shown.status == .ok && !body.contains("hunter2") && !body.contains("pw1"), "\(body)")
            let text = try #require(
                (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["text"] as? String)
            let token = HTTPField.Name("X-CSRF-Token")!
            let same = try await client.execute(
                uri: "/api/config/check", method: .post, headers: [.cookie: cookie, token: csrf],
                body: ByteBuffer(string: text))
            #expect(same.status == .ok, "\(String(buffer: same.body))")
            let script = try await client.execute(
                uri: "/api/config/check", method: .post, headers: [.cookie: cookie, token: csrf],
                body: ByteBuffer(string: text + "\n[player.mpv]\nscript = \"/tmp/x.lua\"\n"))
            #expect(script.status == .unprocessableContent)
            #expect(String(buffer: script.body).contains("from the operator's page"))
        }
    }
}
