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
