import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// The operator's page (`[web]`) served by `upright play`: its security over real HTTP (curl), and
/// an operator's use of it in a real headless Chromium (selenium), checked against `ctl status`.
@Suite("The operator's page", .serialized)
struct WebPageTests {
    static let password = "correct horse battery"

    /// `upright play` with the page on loopback, a password set by `upright web-password`, an
    /// upload folder as its playlist, and its control socket.
    final class Page: Sendable {
        let dir: String
        let port: Int
        let config: String
        let control: String
        let play: SignalTests.Play

        var base: String { "\(tls ? "https" : "http")://127.0.0.1:\(port)" }
        let tls: Bool
        var uploads: String { dir + "/media" }

        /// `tls`: a self-signed certificate and its key, made by openssl, serve the page over HTTPS.
        /// `open`: `auth = "none"` (loopback, no password).
        init(uploadMB: Int = 1, tls: Bool = false, open: Bool = false, extra: String = "") async throws {
            self.tls = tls
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir + "/media", withIntermediateDirectories: true)
            port = try MetricsTests.freePort()
            var tlsLines = ""
            if tls {
                let made = try await WebPageTests.run(
                    "/usr/bin/openssl",
                    [
                        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
                        "2",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout",
                        dir + "/key.pem", "-out", dir + "/cert.pem",
                    ])
                #expect(made.status == 0, "\(made.err)")
                tlsLines = "certificate = \"\(dir)/cert.pem\"\nkey = \"\(dir)/key.pem\"\n"
            }
            config = dir + "/upright.toml"
            control = dir + "/control.sock"
            let set = try await WebPageTests.run(
                uprightBinary.path, ["web-password", "--file", dir + "/web-password", "--cost", "10"],
                input: WebPageTests.password + "\n")
            #expect(set.status == 0, "\(set.err)")
            try """
            [lock]
            evdev = "none"
            [player]
            playlist = ["\(dir)/media"]
            [web]
            listen = "127.0.0.1:\(port)"
            \(open ? "auth = \"none\"" : "password_file = \"\(dir)/web-password\"")
            upload_max_mb = \(uploadMB)
            \(tlsLines)
            \(extra)
            """.write(toFile: config, atomically: true, encoding: .utf8)
            play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", control])
            #expect(
                await play.waitFor("web: the operator's page on http\(tls ? "s" : "")://127.0.0.1:\(port)/"),
                "\(play.stderr)")
        }

        deinit {
            play.process.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: dir)
        }

        /// `curl` against the page: the status code and the body.
        func curl(_ arguments: [String], input: String? = nil) async -> (code: Int, body: String) {
            let run = try? await WebPageTests.run(
                "/usr/bin/curl",
                ["-s", "--max-time", "10", "-w", "\n%{http_code}"] + (tls ? ["--cacert", dir + "/cert.pem"] : [])
                    + arguments, input: input)
            let out = run?.out ?? ""
            let code = Int(out.split(separator: "\n").last ?? "") ?? 0
            return (
                code, out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().joined(separator: "\n")
            )
        }

        /// Logs in; the cookie jar and the CSRF token.
        func logIn() async -> (jar: String, csrf: String) {
            let jar = dir + "/jar-\(UUID().uuidString)"
            let login = await curl([
                "-c", jar, "--data-urlencode", "password=\(WebPageTests.password)", base + "/login",
            ])
            #expect(login.code == 303, "\(login)")
            let page = await curl(["-b", jar, base + "/"])
            let csrf =
                page.body.components(separatedBy: "name=\"csrf\" content=\"").dropFirst().first?
                .prefix { $0 != "\"" } ?? ""
            #expect(csrf.count == 64, "\(page.body)")
            return (jar, String(csrf))
        }

        func ctlStatus() async -> [String: Any] {
            let run = try? await WebPageTests.run(uprightBinary.path, ["ctl", "--socket", control, "status"])
            let data = Data((run?.out ?? "").utf8)
            return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["status"] as? [String: Any]
                ?? [:]
        }
    }

    /// A program's status and output, off the cooperative pool.
    static func run(_ path: String, _ arguments: [String], input: String? = nil) async throws
        -> (status: Int32, out: String, err: String)
    {
        try await Blocking.run { () throws -> (Int32, String, String) in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = arguments
            let out = Pipe(), err = Pipe(), inp = Pipe()
            p.standardOutput = out
            p.standardError = err
            p.standardInput = inp
            try p.run()
            if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
            try? inp.fileHandleForWriting.close()
            let o = out.fileHandleForReading.readDataToEndOfFile()
            let e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
        }
    }

    @Test func noSessionNoPageAndEveryChangeNeedsItsToken() async throws {
        let page = try await Page()
        // Every route without a session: 401 (a browser asking for a page gets the log-in form).
        for path in [
            "/", "/api/status", "/api/events", "/api/screenshot.png", "/api/content", "/api/config", "/metrics",
            "/static/page.js",
        ] {
            let r = await page.curl([page.base + path])
            #expect(r.code == 401, "GET \(path): \(r)")
        }
        let browser = await page.curl(["-H", "Accept: text/html", page.base + "/"])
        #expect(browser.code == 401 && browser.body.contains("id=\"password\""), "\(browser)")
        for path in ["/api/action", "/api/upload?name=a.mp4", "/api/delete?name=a.png", "/api/config", "/logout"] {
            let r = await page.curl(["-X", "POST", "--data", "{}", page.base + path])
            #expect(r.code == 401, "POST \(path): \(r)")
        }
        // Prometheus's basic_auth reads /metrics with the password; a wrong one does not.
        #expect(
            await page.curl(["-u", "prometheus:\(Self.password)", page.base + "/metrics"]).body.contains("upright_"))
        #expect(await page.curl(["-u", "prometheus:wrong", page.base + "/metrics"]).code == 401)

        let (jar, csrf) = await page.logIn()
        let cookie = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(cookie.contains("#HttpOnly_127.0.0.1") && cookie.contains("upright_session"), "\(cookie)")
        let headers = await page.curl([
            "-D", "-", "-o", "/dev/null", "--data-urlencode", "password=\(Self.password)", page.base + "/login",
        ])
        #expect(headers.body.contains("SameSite=Strict") && headers.body.contains("HttpOnly"), "\(headers)")
        #expect(headers.body.contains("Content-Security-Policy: default-src 'self'"))

        // A change without the token: 403, and nothing changes; with it: done.
        let action = ["-b", jar, "-H", "Content-Type: application/json", "--data", #"{"command": "fullscreen"}"#]
        #expect(await page.curl(action + [page.base + "/api/action"]).code == 403)
        #expect((await page.ctlStatus())["scenes"] as? [String] == ["inline"])
        let done = await page.curl(action + ["-H", "X-CSRF-Token: \(csrf)", page.base + "/api/action"])
        #expect(done.code == 200 && done.body.contains(#""ok": true"#), "\(done)")
        #expect((await page.ctlStatus())["scenes"] as? [String] == ["inline", "fullscreen"])
        // A refusal says why.
        let refused = await page.curl([
            "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "--data", #"{"command": "rotate-to", "argument": "sideways"}"#,
            page.base + "/api/action",
        ])
        #expect(refused.code == 422 && refused.body.contains("sideways"), "\(refused)")

        // The sixth wrong password in a minute (the first was HTTP Basic's above): 429, even for a
        // right one.
        for n in 2...5 {
            let wrong = await page.curl(["--data-urlencode", "password=guess \(n)", page.base + "/login"])
            #expect(wrong.code == 401, "attempt \(n): \(wrong)")
        }
        let sixth = await page.curl(["--data-urlencode", "password=\(Self.password)", page.base + "/login"])
        #expect(sixth.code == 429 && sixth.body.contains("Try again in"), "\(sixth)")
        // The session opened before goes on; the password is in no log line.
        #expect(await page.curl(["-b", jar, page.base + "/api/status"]).code == 200)
        #expect(page.play.stderr.contains("web: a wrong password from 127.0.0.1"), "\(page.play.stderr)")
        #expect(!page.play.stderr.contains(Self.password) && !page.play.stdout.contains(Self.password))
        #expect(!page.play.stderr.contains("guess"))
    }

    /// Idle and slow-header connections by the hundred, from the operator's own address, to the
    /// page and to `/metrics` at once: each port holds at most its 64 (the oldest idle ones make
    /// room), and the operator's status and a scrape still answer at once. (`make bench` holds
    /// 1,500 of each for 90 s.)
    @Test func idleAndSlowClientsKeepNobodyOut() async throws {
        let metricsPort = try MetricsTests.freePort()
        let page = try await Page(extra: "[metrics]\nlisten = \"127.0.0.1:\(metricsPort)\"")
        #expect(await page.play.waitFor("/metrics"), "\(page.play.stderr)")
        let (jar, _) = await page.logIn()
        let pid = page.play.process.processIdentifier
        let before = Self.descriptors(pid)
        // The test's own descriptors: room for its connections beside the other tests'.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 8192))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for port in [page.port, metricsPort] {
            for n in 0..<200 {
                let fd = try Self.connect(port)
                // One in five is slow: a part of a request head, never its end.
                if n % 5 == 0 { _ = "GET / HTTP/1.1\r\nHost: 127".withCString { write(fd, $0, 20) } }
                held.append(fd)
            }
        }
        try await Task.sleep(for: .seconds(1))
        let during = Self.descriptors(pid)
        #expect(during - before <= 2 * 64 + 8, "\(before) → \(during) descriptors")
        let started = Date()
        let status = await page.curl(["-b", jar, page.base + "/api/status"])
        #expect(status.code == 200 && Date().timeIntervalSince(started) < 2, "\(status.code)")
        let scrapeStarted = Date()
        let scrape = await page.curl(["http://127.0.0.1:\(metricsPort)/metrics"])
        #expect(
            scrape.code == 200 && scrape.body.contains("upright_") && Date().timeIntervalSince(scrapeStarted) < 2,
            "\(scrape.code)")
        #expect(page.play.process.isRunning)
    }

    /// TOML bombs posted to the configuration check: each gets an error reply at its line, the
    /// process lives, and twenty in a row take under 10 s of its CPU.
    @Test func tomlBombsPostedToTheCheckAreErrors() async throws {
        let page = try await Page()
        let (jar, csrf) = await page.logIn()
        let pid = page.play.process.processIdentifier
        let before = Self.cpuSeconds(pid)
        let bombs = [String(repeating: "[", count: 200_000), "x = " + String(repeating: "{a=", count: 100_000)]
        for n in 0..<20 {
            let answer = await page.curl(
                [
                    "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "--data-binary", "@-",
                    page.base + "/api/config/check",
                ], input: bombs[n % 2])
            #expect(
                answer.code == 422 && answer.body.contains("error"),
                "bomb \(n): \(answer.code) \(answer.body.prefix(200))")
        }
        let used = Self.cpuSeconds(pid) - before
        #expect(used < 10, "\(used) s of CPU")
        #expect(page.play.process.isRunning)
    }

    /// The CPU time process `pid` has used, in seconds (user and system).
    static func cpuSeconds(_ pid: Int32) -> Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The descriptors process `pid` has open.
    static func descriptors(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// A TCP connection to 127.0.0.1:`port`.
    static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, r == 0 else {
            throw HarnessError("cannot connect to port \(port): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    @Test func withoutAPasswordOnLoopbackChangesStillNeedTheToken() async throws {
        let page = try await Page(open: true)
        #expect(page.play.stderr.contains("(no password: loopback only)"), "\(page.play.stderr)")
        let jar = page.dir + "/jar"
        let first = await page.curl(["-c", jar, "-b", jar, page.base + "/"])
        #expect(first.code == 200 && first.body.contains("name=\"csrf\""), "\(first)")
        let csrf =
            first.body.components(separatedBy: "name=\"csrf\" content=\"").dropFirst().first?.prefix { $0 != "\"" }
            ?? ""
        // A script without cookies reads, and gets the same session: a browser's stays valid.
        #expect(await page.curl([page.base + "/api/status"]).code == 200)
        let action = ["-b", jar, "--data", #"{"command": "fullscreen"}"#, page.base + "/api/action"]
        #expect(await page.curl(action).code == 403)
        #expect(await page.curl(["-H", "X-CSRF-Token: \(csrf)"] + action).code == 200)
        // Only a loopback name reaches it (DNS rebinding does not): a foreign Host is refused,
        // with or without a port, and so is a name that only starts like an address.
        for host in ["evil.example", "evil.example:\(page.port)", "127.attacker.example:\(page.port)"] {
            let answer = await page.curl(["-H", "Host: \(host)", page.base + "/api/status"])
            #expect((400..<500).contains(answer.code), "\(host): \(answer)")
        }
        for host in ["localhost:\(page.port)", "127.0.0.1:\(page.port)", "[::1]:\(page.port)"] {
            #expect(await page.curl(["-H", "Host: \(host)", page.base + "/api/status"]).code == 200, "\(host)")
        }
        // A change from another site is refused even with the token; from the page itself it works.
        let token = ["-H", "X-CSRF-Token: \(csrf)"] + action
        #expect(await page.curl(["-H", "Origin: http://evil.example"] + token).code == 403)
        #expect(await page.curl(["-H", "Origin: http://127.0.0.1:\(page.port)"] + token).code == 200)
    }

    @Test func overTLSTheSessionCookieIsSecure() async throws {
        let page = try await Page(tls: true)
        let headers = await page.curl([
            "-D", "-", "-o", "/dev/null", "--data-urlencode", "password=\(Self.password)",
            page.base + "/login",
        ])
        #expect(headers.code == 303, "\(headers)")
        let cookie = headers.body.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(
            cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
        // Plain HTTP on the same port is not served.
        let plain = try await Self.run(
            "/usr/bin/curl",
            ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(page.port)/login"])
        #expect(plain.out != "200", "\(plain)")
    }

    @Test func uploadsStayInTheirFolderWithinTheLimit() async throws {
        let page = try await Page(uploadMB: 1)
        let (jar, csrf) = await page.logIn()
        let post = ["-b", jar, "-H", "X-CSRF-Token: \(csrf)", "-H", "Content-Type: application/octet-stream"]
        let parent = (page.dir as NSString).deletingLastPathComponent
        // Names that would leave the folder: refused, nothing written anywhere.
        for name in ["../x.mp4", "..%2Fx.mp4", "%2E%2E%2Fx.mp4", "sub/x.mp4", ".hidden.mp4", "x.sh"] {
            let r = await page.curl(post + ["--data-binary", "xx", page.base + "/api/upload?name=\(name)"])
            #expect(r.code == 422, "\(name): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: page.dir + "/x.mp4"))
        #expect(!FileManager.default.fileExists(atPath: parent + "/x.mp4"))
        // Over the limit (1 MB): told by its length, or found while it streams (chunked).
        let big = page.dir + "/big.bin"
        try Data(count: 2 << 20).write(to: URL(fileURLWithPath: big))
        let declared = await page.curl(post + ["--data-binary", "@\(big)", page.base + "/api/upload?name=big.mp4"])
        #expect(declared.code == 413, "\(declared)")
        let chunked = await page.curl(
            post + [
                "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(big)", page.base + "/api/upload?name=big.mp4",
            ])
        #expect(chunked.code == 413, "\(chunked)")
        // Not what its extension says: refused.
        let text = await page.curl(post + ["--data-binary", "#!/bin/sh\n", page.base + "/api/upload?name=film.mp4"])
        #expect(text.code == 422 && text.body.contains("does not start as a .mp4 file does"), "\(text)")
        // Nothing left behind: no file, no partial upload.
        #expect(try FileManager.default.contentsOfDirectory(atPath: page.uploads) == [])

        // The configured playlist, with when each entry plays.
        let playlist = await page.curl(["-b", jar, page.base + "/api/playlist"])
        #expect(playlist.body.contains(#"{"entry":"\#(page.uploads)","now":true,"schedule":"always"}"#), "\(playlist)")

        // A picture: kept, listed, deleted.
        let png = page.dir + "/red.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 64))
            .write(to: URL(fileURLWithPath: png))
        let kept = await page.curl(post + ["--data-binary", "@\(png)", page.base + "/api/upload?name=red.png"])
        #expect(kept.code == 201, "\(kept)")
        #expect(FileManager.default.fileExists(atPath: page.uploads + "/red.png"))
        #expect(await page.curl(["-b", jar, page.base + "/api/content"]).body.contains(#""name":"red.png""#))
        let gone = await page.curl([
            "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "-X", "POST", page.base + "/api/delete?name=red.png",
        ])
        #expect(gone.code == 200, "\(gone)")
        #expect(!FileManager.default.fileExists(atPath: page.uploads + "/red.png"))
        #expect(
            await page.curl([
                "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "-X", "POST", page.base + "/api/delete?name=../upright.toml",
            ]).code == 422)
        #expect(FileManager.default.fileExists(atPath: page.config))
    }

    @Test func aConfigurationWithAnErrorIsRefusedAtItsLine() async throws {
        let page = try await Page()
        let (jar, csrf) = await page.logIn()
        let before = try String(contentsOfFile: page.config, encoding: .utf8)
        let bad = before + "[transition]\nduration = -1\n"
        let r = await page.curl([
            "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "-H", "Content-Type: text/plain", "--data-binary", bad,
            page.base + "/api/config",
        ])
        let line = bad.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(r.code == 422 && r.body.contains(#""line":\#(line)"#) && r.body.contains("duration"), "\(r)")
        #expect(try String(contentsOfFile: page.config, encoding: .utf8) == before, "a refused file is not written")
        // A good one is saved and applied (a reload).
        let good = before + "[transition]\nduration = 0.2\n"
        let saved = await page.curl([
            "-b", jar, "-H", "X-CSRF-Token: \(csrf)", "--data-binary", good, page.base + "/api/config",
        ])
        #expect(saved.code == 200 && saved.body.contains("configuration reloaded from"), "\(saved)")
        #expect(try String(contentsOfFile: page.config, encoding: .utf8) == good)
    }

    /// A browser, driven step by step: one line of JSON per step.
    final class Browser: @unchecked Sendable {  // its pipes are used by one test at a time
        let process = Process()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        var buffer = Data()

        /// Chromium runs with an environment of its own in `home`: none of this process's display,
        /// bus or runtime variables, which other tests set and take down while it starts.
        init(_ arguments: [String], home: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [fixture("web_browser_check.py")] + arguments
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        /// The next line of JSON (60 s at most).
        func next() async -> [String: Any] {
            let handle = output.fileHandleForReading
            let line: Data? = try? await Blocking.run { [self] () throws -> Data? in
                while !buffer.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return nil }
                    buffer += chunk
                }
                let end = buffer.firstIndex(of: 0x0A)!
                let line = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[(end + 1)...])
                return Data(line)
            }
            guard let line else {
                return ["error": String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)]
            }
            return (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [
                "unreadable": String(decoding: line, as: UTF8.self)
            ]
        }

        func step(_ name: String) async -> [String: Any] {
            // A browser that has ended takes no more steps (a write would be a broken pipe).
            guard process.isRunning,
                (try? input.fileHandleForWriting.write(contentsOf: Data((name + "\n").utf8))) != nil
            else { return ["error": "the browser script has ended: \(process.terminationStatus)"] }
            return await next()
        }
    }

    @Test func anOperatorLogsInReadsTheStatusTurnsToFullScreenUploadsAClipAndIsToldOfAnError() async throws {
        let page = try await Page(uploadMB: 8)
        let clip = page.dir + "/welcome clip.mp4"
        let made = try await Self.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=3:size=320x240:rate=10", "-pix_fmt", "yuv420p",
                clip,
            ])
        #expect(made.status == 0, "\(made.err)")
        let shots = ProcessInfo.processInfo.environment["UPRIGHT_WEB_SCREENSHOTS"] ?? page.dir
        let browser = try Browser(
            [page.base + "/", Self.password, clip, "[transition]\nduration = -1\n", shots], home: page.dir)
        defer { if browser.process.isRunning { browser.process.send(SIGKILL) } }

        let login = await browser.next()
        try #require(login["has_password"] as? Bool == true, "\(login)")
        let loggedIn = await browser.next()
        #expect(loggedIn["step"] as? String == "logged-in", "\(loggedIn)")

        let status = await browser.step("status")
        let ctl = await page.ctlStatus()
        #expect(status["device"] as? String == ctl["device"] as? String, "\(status) \(ctl)")
        #expect(status["interface"] as? String == ctl["interface"] as? String, "\(status) \(ctl)")

        let fullscreen = await browser.step("fullscreen")
        #expect((fullscreen["scene"] as? String)?.contains("fullscreen") == true, "\(fullscreen)")
        #expect((await page.ctlStatus())["scenes"] as? [String] == ["inline", "fullscreen"])

        let upload = await browser.step("upload")
        #expect(
            upload["answer"] as? String == "welcome clip.mp4 uploaded" && upload["listed"] as? Bool == true, "\(upload)"
        )
        #expect(FileManager.default.fileExists(atPath: page.uploads + "/welcome clip.mp4"))
        let playing = await browser.step("playing")
        #expect(
            (playing["playing"] as? String)?.hasSuffix("welcome clip.mp4") == true, "\(playing) \(page.play.stderr)")
        #expect((await page.ctlStatus())["playing"] as? String == page.uploads + "/welcome clip.mp4")

        let config = await browser.step("config")
        let lines = config["lines"] as? Int ?? 0
        #expect((config["problems"] as? String)?.contains("line \(lines + 1), column 12: error:") == true, "\(config)")

        let screenshots = await browser.step("screenshots")
        #expect(screenshots["step"] as? String == "screenshots", "\(screenshots)")
        #expect(FileManager.default.fileExists(atPath: shots + "/web-phone.png"))
        _ = await browser.step("quit")
    }
}
