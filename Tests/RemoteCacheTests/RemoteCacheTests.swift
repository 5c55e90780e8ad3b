import Foundation
import Logging
import RemoteCache
import TestSupport
import Testing

/// The cache against a real HTTP server on loopback (Python's, with ETags, and a path that sends
/// less than it announces).
@Suite("The remote cache", .serialized)
struct RemoteCacheTests {
    static func directory() throws -> String {
        let d = NSTemporaryDirectory() + "cache-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: d + "/www", withIntermediateDirectories: true)
        return d
    }

    @Test func anItemIsDownloadedCheckedAndPlayedFromTheCacheAfterTheServerIsGone() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("first version".utf8).write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        let server = try FileServer(root: dir + "/www")
        let url = "http://127.0.0.1:\(server.port)/clip.mp4"
        let settings = RemoteCacheSettings(directory: dir + "/cache")
        let cache = try RemoteCache(settings: settings, logger: Logger(label: "test"))
        let first = try await cache.file(for: url).get()
        #expect(try String(contentsOfFile: first, encoding: .utf8) == "first version")
        #expect(first.hasSuffix(".mp4") && first.hasPrefix(dir + "/cache/"))
        // Unchanged: a conditional request, the same file.
        #expect(await cache.refresh(url) == .success(false))
        #expect(try await cache.file(for: url).get() == first)
        // Changed on the server: the new version; the old file stays one version more (it may be
        // playing), and goes when the next one comes.
        try Data("second version".utf8).write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        #expect(await cache.refresh(url) == .success(true))
        let second = try await cache.file(for: url).get()
        #expect(second != first && FileManager.default.fileExists(atPath: first))
        #expect(try String(contentsOfFile: second, encoding: .utf8) == "second version")
        try Data("third version".utf8).write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        #expect(await cache.refresh(url) == .success(true))
        #expect(!FileManager.default.fileExists(atPath: first) && FileManager.default.fileExists(atPath: second))
        let third = try await cache.file(for: url).get()
        await cache.shutdown()

        // The server gone and the cache made again (a restart): it plays what it has.
        server.stop()
        let again = try RemoteCache(settings: settings, logger: Logger(label: "test"))
        #expect(again.cachedFile(url) == third)
        #expect(try await again.file(for: url).get() == third)
        guard case .failure(.network) = await again.refresh(url) else {
            Issue.record("a refresh with the server gone is a network problem")
            return
        }
        #expect(try await again.file(for: url).get() == third, "what it had stays")
        await again.shutdown()
    }

    /// The cache on a 16 MB file system (a tmpfs mounted for the test): a 1 MB item is kept, a
    /// 24 MB one is "no space" (a disk problem, not a network one) and leaves no partial file;
    /// files of the cache's own naming that no entry names are swept at the start, and nothing else.
    @Test func aFullDiskIsNoSpaceAndLeavesNothingBehind() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(repeating: 1, count: 1_000_000).write(to: URL(fileURLWithPath: dir + "/www/small.mp4"))
        try Data(repeating: 2, count: 24_000_000).write(to: URL(fileURLWithPath: dir + "/www/big.mp4"))
        let small16 = dir + "/cache"
        try FileManager.default.createDirectory(atPath: small16, withIntermediateDirectories: true)
        let mount = try Process.run(
            URL(fileURLWithPath: "/bin/mount"), arguments: ["-t", "tmpfs", "-o", "size=16m", "tmpfs", small16])
        mount.waitUntilExit()
        try #require(
            mount.terminationStatus == 0, "a 16 MB tmpfs could not be mounted at \(small16) (the test runs as root)")
        defer {
            if let umount = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [small16]) {
                umount.waitUntilExit()
            }
        }
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let cache = try RemoteCache(settings: RemoteCacheSettings(directory: small16), logger: Logger(label: "test"))
        let small = try await cache.file(for: "http://127.0.0.1:\(server.port)/small.mp4").get()
        #expect(FileManager.default.fileExists(atPath: small))
        let big = await cache.file(for: "http://127.0.0.1:\(server.port)/big.mp4")
        guard case .failure(let problem) = big, case .noSpace = problem else {
            Issue.record("a 24 MB file on a 16 MB disk: \(big)")
            return
        }
        #expect(problem.description.hasPrefix("no space: the cache's file system has "), "\(problem)")
        let left = try FileManager.default.contentsOfDirectory(atPath: small16)
        #expect(!left.contains { $0.hasPrefix(".part-") } && FileManager.default.fileExists(atPath: small), "\(left)")
        await cache.shutdown()
        // An orphan of the cache's naming goes at the next start; the operator's own file stays.
        let orphan = small16 + "/" + String(repeating: "ab", count: 32) + ".mp4"
        try Data("x".utf8).write(to: URL(fileURLWithPath: orphan))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: small16 + "/notes.txt"))
        let again = try RemoteCache(settings: RemoteCacheSettings(directory: small16), logger: Logger(label: "test"))
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(
            FileManager.default.fileExists(atPath: small16 + "/notes.txt")
                && FileManager.default.fileExists(atPath: small))
        await again.shutdown()
    }

    @Test func aTruncatedOrWrongDownloadIsNeverKept() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("the real clip".utf8).write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let cache = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/cache"), logger: Logger(label: "test"))
        let truncated = await cache.file(for: server.url("truncated/clip.mp4"))
        switch truncated {
        case .failure(.truncated), .failure(.network): break
        default: Issue.record("a truncated download: \(truncated)")
        }
        let wrong = await cache.file(
            for: "http://127.0.0.1:\(server.port)/clip.mp4", sha256: String(repeating: "0", count: 64))
        guard case .failure(.checksum(_, let got)) = wrong else {
            Issue.record("a download with another sha256: \(wrong)")
            return
        }
        #expect(got.count == 64)
        #expect(await cache.file(for: "http://127.0.0.1:\(server.port)/missing.mp4") == .failure(.status(404)))
        // Nothing but the index in the cache.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/cache").filter { $0 != "index.json" }
        #expect(files.isEmpty, "\(files)")
        await cache.shutdown()
    }

    @Test func theLeastRecentlyPlayedGoWhenTheCacheIsFull() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["a", "b", "c"] {
            try Data(repeating: UInt8(ascii: "x"), count: 400).write(to: URL(fileURLWithPath: dir + "/www/\(name).mp4"))
        }
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let cache = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/cache", maxBytes: 1000), logger: Logger(label: "test"))
        let base = "http://127.0.0.1:\(server.port)/"
        _ = try await cache.file(for: base + "a.mp4").get()
        _ = try await cache.file(for: base + "b.mp4").get()
        _ = try await cache.file(for: base + "a.mp4").get()  // played again: b is the oldest now
        _ = try await cache.file(for: base + "c.mp4").get()
        #expect(await cache.entry(base + "a.mp4") != nil)
        #expect(await cache.entry(base + "b.mp4") == nil)
        #expect(await cache.entry(base + "c.mp4") != nil)
        await cache.shutdown()
    }
}

/// `https://` servers: their certificates are verified, against the system's CAs and a named CA
/// file.
@Suite("The remote cache over TLS", .serialized)
struct RemoteCacheTLSTests {
    /// A CA, and a certificate for `localhost` it signed (openssl).
    static func authority(in dir: String) throws -> (ca: String, certificate: String, key: String) {
        let script = """
            set -e
            cd "$1"
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=Upright-test-CA 2>/dev/null
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null
            printf 'subjectAltName=DNS:localhost\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \\
                -extfile san.ext 2>/dev/null
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, "sh", dir]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("openssl could not make the test's CA") }
        return (dir + "/ca.pem", dir + "/server.pem", dir + "/server.key")
    }

    @Test func aServerSignedByTheNamedCAIsTrustedAndNoOtherIs() async throws {
        let dir = try RemoteCacheTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pki = try Self.authority(in: dir)
        try Data("over TLS".utf8).write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        let server = try FileServer(root: dir + "/www", tls: (pki.certificate, pki.key))
        defer { server.stop() }
        let url = server.url("clip.mp4")

        let trusting = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/trusting", caFile: pki.ca), logger: Logger(label: "test"))
        let file = try await trusting.file(for: url).get()
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "over TLS")
        await trusting.shutdown()

        // The system's CAs alone do not know the test's CA: refused, nothing kept.
        let plain = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/plain"), logger: Logger(label: "test"))
        let refused = await plain.file(for: url)
        guard case .failure(.network(let why)) = refused else {
            Issue.record("a certificate no trusted CA signed: \(refused)")
            await plain.shutdown()
            return
        }
        #expect(why.lowercased().contains("certificate") || why.contains("handshake"), "\(why)")
        #expect(plain.cachedFile(url) == nil)
        await plain.shutdown()
    }
}

/// Downloads through the fault proxy, between the cache and a server that stays up.
@Suite("Downloads through a failing network")
struct FailingNetworkTests {
    /// Through the fault proxy, downloads that go wrong on the way: each fails with its own
    /// problem, keeps nothing, and the same URL downloads whole once the network is well again.
    @Test(arguments: [
        (FaultProxy.Fault.truncate(), "ended after"), (.reset, "reset"), (.status(503), "answered 503"),
        (.stall(afterBytes: 1000), "stalled"), (.trickle(bytesPerSecond: 20_000), "took more than"),
    ])
    func aDownloadThatFailsOnTheWayKeepsNothing(fault: FaultProxy.Fault, says: String) async throws {
        let dir = try RemoteCacheTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try clip.write(to: URL(fileURLWithPath: dir + "/www/clip.mp4"))
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        let proxy = try FaultProxy(upstream: server.port)
        defer { proxy.stop() }
        // A trickle is told by the whole download's bound, set to come first (a loaded machine may
        // hold the proxy's next chunk back for a second); a stall by the bound between bytes, 2 s:
        // with 1 s, the download once the network is well again (a new connection through the
        // proxy to the server, both Python) failed as stalled on a loaded machine.
        var whole = Duration.seconds(5), between = Duration.seconds(2)
        if case .trickle = fault { (whole, between) = (.seconds(1.5), .seconds(5)) }
        let cache = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/cache", timeout: whole, readTimeout: between),
            logger: Logger(label: "test"))
        // The cache is shut down whatever happens (an HTTP client dropped unshut traps).
        let outcome: Result<Void, any Error>
        do {
            try await Self.failsThenDownloads(cache, through: proxy, fault: fault, says: says, dir: dir, clip: clip)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await cache.shutdown()
        try outcome.get()
    }

    static func failsThenDownloads(
        _ cache: RemoteCache, through proxy: FaultProxy, fault: FaultProxy.Fault, says: String, dir: String, clip: Data
    ) async throws {
        try proxy.set(fault)
        let failed = await cache.file(for: proxy.url("clip.mp4"))
        guard case .failure(let problem) = failed else {
            Issue.record("\(fault): \(failed)")
            return
        }
        #expect("\(problem)".contains(says), "\(fault): \(problem)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir + "/cache").filter { $0 != "index.json" }
        #expect(left.isEmpty, "\(fault): \(left)")
        try proxy.set(FaultProxy.Fault.pass)
        let file = try await cache.file(for: proxy.url("clip.mp4")).get()
        #expect(FileManager.default.contents(atPath: file) == clip)
    }
}

/// After an outage, the first request once the server is back is answered at once: an HTTP
/// client's own backoff (grown by a quarter for each refused connection, to a minute) held a live
/// stream's return back by 2.5 s after a 10 s outage, and would by a minute after a long one.
@Suite("Requests after an outage")
struct AfterAnOutageTests {
    /// A server on a port, stopped; `refused` requests made while it is away; started again.
    static func outage(refused: Int, ask: (String) async -> Bool) async throws -> (away: [Bool], back: Double) {
        let dir = try RemoteCacheTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: dir + "/www/live.m3u8"))
        let first = try FileServer(root: dir + "/www")
        let url = "http://127.0.0.1:\(first.port)/live.m3u8"
        first.stop()
        var away: [Bool] = []
        for _ in 0..<refused { away.append(await ask(url)) }
        let again = try FileServer(root: dir + "/www", port: first.port)
        defer { again.stop() }
        let asked = ContinuousClock.now
        #expect(await ask(url), "served again")
        return (away, (ContinuousClock.now - asked) / .seconds(1))
    }

    /// 25 refused probes (a backoff of 26 s by then): each a prompt "no", and the next a "yes".
    @Test func aLostStreamsServerIsSeenBackAtTheNextProbe() async throws {
        let start = ContinuousClock.now
        let (away, back) = try await Self.outage(refused: 25) { await StreamAnswer.answers($0) }
        #expect(away == Array(repeating: false, count: 25))
        #expect(ContinuousClock.now - start < .seconds(10), "each refusal at once")
        #expect(back < 1, "back after \(back) s")
    }

    /// The same for the cache's requests: 25 refreshes refused, then one that downloads.
    @Test func theCachesFirstRequestAfterAnOutageGoesOutAtOnce() async throws {
        let dir = try RemoteCacheTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try RemoteCache(
            settings: RemoteCacheSettings(directory: dir + "/cache"), logger: Logger(label: "test"))
        let (away, back) = try await Self.outage(refused: 25) { url in
            if case .success = await cache.refresh(url) { true } else { false }
        }
        await cache.shutdown()
        #expect(away == Array(repeating: false, count: 25))
        #expect(back < 1, "back after \(back) s")
    }
}
