import AsyncHTTPClient
import Blocking
import Crypto
import Files
public import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Where and how much the cache keeps.
public struct RemoteCacheSettings: Sendable, Hashable {
    /// The cache's directory (systemd's `CacheDirectory=`, else `~/.cache/upright`).
    public var directory: String
    /// Bytes the cached files may take together; the least recently played go first.
    public var maxBytes: Int64
    /// A CA file for `https://` servers besides the system's; `nil`: the system's alone.
    public var caFile: String?
    /// The longest a download may take.
    public var timeout: Duration
    /// The longest a connection may take to open (a server that is gone is retried meanwhile).
    public var connectTimeout: Duration
    /// The longest a download may go without a byte (a Wi-Fi roam, a NAT timeout, a server that
    /// stalls): it fails, and is asked again with back-off.
    public var readTimeout: Duration
    /// The User-Agent of every request (the player's identity to a CMS); `nil`: the client's own.
    public var userAgent: String?

    public init(
        directory: String, maxBytes: Int64 = 2_000_000_000, caFile: String? = nil, timeout: Duration = .seconds(1800),
        connectTimeout: Duration = .seconds(3), readTimeout: Duration = .seconds(30), userAgent: String? = nil
    ) {
        (self.directory, self.maxBytes, self.caFile, self.timeout) = (directory, maxBytes, caFile, timeout)
        (self.connectTimeout, self.readTimeout, self.userAgent) = (connectTimeout, readTimeout, userAgent)
    }
}

/// One remote item in the cache.
public struct CacheEntry: Codable, Sendable, Hashable {
    public var url: String
    /// The file's name in the cache's directory.
    public var file: String
    public var bytes: Int64
    public var sha256: String
    public var etag: String?
    public var lastModified: String?
    /// When the server last confirmed it (a download, or a 304).
    public var fetched: Date
    public var lastPlayed: Date?
    /// The version before, kept until the next one arrives: mpv may still be playing it.
    public var previous: String?
}

/// Why an item could not be fetched; what was cached before stays.
public enum CacheProblem: Error, Sendable, Hashable, CustomStringConvertible {
    case status(Int)
    case truncated(expected: Int64, got: Int64)
    case checksum(expected: String, got: String)
    case network(String)
    case disk(String)
    case tooLarge(limit: Int64)
    /// The cache's file system has no room for it (`free` bytes left, `needed` asked, when known).
    case noSpace(free: Int64, needed: Int64?)

    public var description: String {
        switch self {
        case .status(let code): "the server answered \(code)"
        case .truncated(let expected, let got): "the download ended after \(got) of \(expected) bytes"
        case .checksum(let expected, let got): "its sha256 is \(got), not \(expected) as the playlist says"
        case .network(let why): why
        case .disk(let why): "the cache cannot be written: \(why)"
        case .noSpace(let free, let needed):
            "no space: the cache's file system has \(free / 1_000_000) MB free"
                + (needed.map { ", the file is \($0 / 1_000_000) MB" } ?? "")
        case .tooLarge(let limit):
            "it is larger than the cache (\(limit / 1_000_000) MB; [cache] max_mb), or a stream: say live = true"
        }
    }
}

/// Remote playlist items downloaded into a directory, checked, and played from there: the
/// network may go, the items stay (after a restart too: the index is a file beside them).
/// Downloads are written to a temporary file and renamed into place once whole and checked, so a
/// file in the cache is never half of one.
public actor RemoteCache {
    public let settings: RemoteCacheSettings
    private let client: HTTPClient
    private let logger: Logger
    private var entries: [String: CacheEntry] = [:]
    /// Each cached URL's file, readable from any thread (the playlist's scan looks here).
    private nonisolated let files = Mutex<[String: String]>([:])
    private var indexPath: String { settings.directory + "/index.json" }

    public init(settings: RemoteCacheSettings, logger: Logger) throws(CacheProblem) {
        self.settings = settings
        self.logger = logger
        if let why = Self.makeDirectory(settings.directory) { throw .disk("\(settings.directory): \(why)") }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let ca = settings.caFile {
            tls.additionalTrustRoots = [.file(ca)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.timeout.connect = .milliseconds(Int64(settings.connectTimeout.components.seconds * 1000))
        // Between two reads, the head's and the body's alike.
        configuration.timeout.read = .milliseconds(Self.milliseconds(settings.readTimeout))
        configuration.connectionPool = Self.noBackoff(configuration.connectionPool)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        if let data = FileManager.default.contents(atPath: settings.directory + "/index.json"),
            let saved = try? JSONDecoder.cache.decode([CacheEntry].self, from: data)
        {
            // Only entries whose file is still there.
            for e in saved where FileManager.default.fileExists(atPath: settings.directory + "/" + e.file) {
                entries[e.url] = e
            }
        }
        // Leftovers of a download cut short (the process ended in the middle of one), and files
        // no entry names (an index written before they were removed, a version left behind).
        let named = Set(entries.values.flatMap { [$0.file] + ($0.previous.map { [$0] } ?? []) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: settings.directory)) ?? []
        where Self.isCacheFile(name) && !named.contains(name) {
            unlink(settings.directory + "/" + name)
        }
        let map = entries.mapValues { settings.directory + "/" + $0.file }
        files.withLock { $0 = map }
    }

    /// `pool` with no connection retries of the client's own. AsyncHTTPClient retries a failed
    /// connection with a backoff that grows by a quarter for each failure in a row (to a minute),
    /// and a request waits for it: after an outage of a few minutes, the first request once the
    /// server is back would wait up to a minute. Upright retries on its own schedule instead, and
    /// a refused connection fails the request at once.
    static func noBackoff(_ pool: HTTPClient.Configuration.ConnectionPool)
        -> HTTPClient.Configuration.ConnectionPool
    {
        var pool = pool
        pool.retryConnectionEstablishment = false
        return pool
    }

    /// Makes `path` and the folders above it (0700); why not, in the system's words.
    static func makeDirectory(_ path: String) -> String? {
        var made = ""
        for part in path.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o700) != 0, errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "not a directory" }
        return access(path, W_OK | X_OK) == 0 ? nil : String(cString: strerror(errno))
    }

    /// The entry for `url`, if it is cached.
    public func entry(_ url: String) -> CacheEntry? { entries[url] }

    /// Every cached entry, by URL.
    public var all: [CacheEntry] { entries.values.sorted { $0.url < $1.url } }

    /// The cached file of `url` now, from any thread; `nil` when it is not cached.
    public nonisolated func cachedFile(_ url: String) -> String? { files.withLock { $0[url] } }

    /// Notes that `url`'s file is played (the least recently played are evicted first).
    public func played(_ url: String) {
        guard var e = entries[url] else { return }
        e.lastPlayed = Date()
        entries[url] = e
        saveIndex()
    }

    /// The local file for `url`: the cached one (its last play noted), else downloaded now.
    public func file(for url: String, sha256 expected: String? = nil) async -> Result<String, CacheProblem> {
        if let e = entries[url], expected == nil || e.sha256 == expected?.lowercased() {
            played(url)
            return .success(settings.directory + "/" + e.file)
        }
        if let problem = await fetch(url, sha256: expected, conditional: false) { return .failure(problem) }
        guard let e = entries[url] else { return .failure(.disk("the index lost \(url)")) }
        return .success(settings.directory + "/" + e.file)
    }

    /// Asks the server whether `url` changed (its ETag or Last-Modified) and downloads the new
    /// version if so (whether a new file came is in the answer). The old file stays until the new
    /// one is whole and checked, and one version more after that (it may be playing).
    public func refresh(_ url: String, sha256 expected: String? = nil) async -> Result<Bool, CacheProblem> {
        let before = entries[url]?.file
        if let problem = await fetch(url, sha256: expected, conditional: expected == nil || before != nil) {
            return .failure(problem)
        }
        return .success(entries[url]?.file != before)
    }

    /// Ends the HTTP client.
    public func shutdown() async { try? await client.shutdown() }

    private func fetch(_ url: String, sha256 expected: String?, conditional: Bool) async -> CacheProblem? {
        let part = settings.directory + "/.part-\(UUID().uuidString)"
        defer { unlink(part) }
        // The whole download, its body too (the client's own deadline covers its head only).
        let deadline = ContinuousClock.now + settings.timeout
        do {
            let response = try await client.execute(
                request(for: url, conditional: conditional), timeout: .milliseconds(Self.milliseconds(settings.timeout))
            )
            guard response.status == .ok else { return await notFetched(url, response) }
            let expectedLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
            if let expectedLength, let problem = room(for: expectedLength, keeping: url) {
                _ = try? await response.body.collect(upTo: 0)
                return problem
            }
            let written: (digest: String, bytes: Int64)
            switch try await download(response.body, url: url, into: part, length: expectedLength, until: deadline) {
            case .failure(let problem): return problem
            case .success(let w): written = w
            }
            if let expectedLength, expectedLength != written.bytes {
                return .truncated(expected: expectedLength, got: written.bytes)
            }
            if let expected, written.digest != expected.lowercased() {
                return .checksum(expected: expected.lowercased(), got: written.digest)
            }
            return keep(url, part: part, written, headers: response.headers)
        } catch let e as HTTPClientError where e == .readTimeout {
            return .network("\(url): stalled: no data for \(settings.readTimeout) (timed out)")
        } catch let e as HTTPClientError {
            return .network("\(url): \(e)")
        } catch {
            return .network("\(url): \(error)")
        }
    }

    /// The request for `url`, conditional on the version cached (its ETag and Last-Modified).
    private func request(for url: String, conditional: Bool) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        if let agent = settings.userAgent { request.headers.replaceOrAdd(name: "User-Agent", value: agent) }
        if conditional, let e = entries[url] {
            if let tag = e.etag { request.headers.add(name: "If-None-Match", value: tag) }
            if let date = e.lastModified { request.headers.add(name: "If-Modified-Since", value: date) }
        }
        return request
    }

    /// An answer other than 200: unchanged (a 304 renews the cached version), or the status.
    private func notFetched(_ url: String, _ response: HTTPClientResponse) async -> CacheProblem? {
        // Read to its end (an error page is small): a body left unread holds the connection.
        _ = try? await response.body.collect(upTo: 1 << 20)
        guard response.status == .notModified, var e = entries[url] else { return .status(Int(response.status.code)) }
        e.fetched = Date()
        entries[url] = e
        saveIndex()
        return nil
    }

    /// Room for `length` bytes more: within max_mb (every file the cache keeps counts; the least
    /// recently played go), and on the disk; why not, when there is none.
    private func room(for length: Int64, keeping url: String) -> CacheProblem? {
        guard length <= settings.maxBytes else { return .tooLarge(limit: settings.maxBytes) }
        evict(keeping: url, adding: length)
        if let free = Self.freeBytes(settings.directory), free < length + Self.spareBytes {
            return .noSpace(free: free, needed: length)
        }
        return nil
    }

    /// `body` written to `part` and hashed, until `deadline`; its SHA-256 and length, or why not.
    /// A connection closed before the announced `length` came is a truncated download.
    private func download(
        _ body: HTTPClientResponse.Body, url: String, into part: String, length: Int64?,
        until deadline: ContinuousClock.Instant
    ) async throws -> Result<(digest: String, bytes: Int64), CacheProblem> {
        var bytes: Int64 = 0
        do {
            return try await write(body, url: url, into: part, counting: &bytes, until: deadline)
        } catch let e as HTTPParserError where e == .invalidEOFState && length != nil {
            return .failure(.truncated(expected: length ?? 0, got: bytes))
        }
    }

    private func write(
        _ body: HTTPClientResponse.Body, url: String, into part: String, counting bytes: inout Int64,
        until deadline: ContinuousClock.Instant
    ) async throws -> Result<(digest: String, bytes: Int64), CacheProblem> {
        guard FileManager.default.createFile(atPath: part, contents: nil),
            let handle = FileHandle(forWritingAtPath: part)
        else { return .failure(.disk("\(part): \(String(cString: strerror(errno)))")) }
        defer { try? handle.close() }
        var hash = SHA256()
        for try await chunk in body {
            guard ContinuousClock.now < deadline else {
                return .failure(.network("\(url): timed out: the download took more than \(settings.timeout)"))
            }
            // An endless body (a stream, not a file) is not taken in.
            guard bytes + Int64(chunk.readableBytes) <= settings.maxBytes else {
                return .failure(.tooLarge(limit: settings.maxBytes))
            }
            let data = Data(chunk.readableBytesView)
            hash.update(data: data)
            // Writes and the final sync wait for the disk: off the cooperative pool.
            do {
                try await Blocking.run { () throws(FileWrite) in try FileWrite.write(data, to: handle) }
            } catch {
                return .failure(Self.writeProblem(error.underlying, part: part))
            }
            bytes += Int64(data.count)
        }
        do {
            try await Blocking.run { () throws(FileWrite) in try FileWrite.sync(handle) }
        } catch {
            return .failure(Self.writeProblem(error.underlying, part: part))
        }
        return .success((hash.finalize().map { String(format: "%02x", $0) }.joined(), bytes))
    }

    /// A whole, checked download put in place as `url`'s file, named by its digest; the old
    /// version stays a while (it may be playing), the one before it goes.
    private func keep(
        _ url: String, part: String, _ written: (digest: String, bytes: Int64), headers: HTTPHeaders
    ) -> CacheProblem? {
        let name = written.digest + Self.fileExtension(of: url)
        guard rename(part, settings.directory + "/" + name) == 0 else {
            return .disk("\(name): \(String(cString: strerror(errno)))")
        }
        let old = entries[url]
        var previous = old?.previous
        if let old, old.file != name { previous = old.file }
        entries[url] = CacheEntry(
            url: url, file: name, bytes: written.bytes, sha256: written.digest, etag: headers.first(name: "ETag"),
            lastModified: headers.first(name: "Last-Modified"), fetched: Date(), lastPlayed: old?.lastPlayed,
            previous: previous == name ? nil : previous)
        if let old, old.file != name, let gone = old.previous, gone != name { remove(gone) }
        evict(keeping: url)
        saveIndex()
        publish()
        return nil
    }

    static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// Deletes a cached file unless an entry still names it.
    private func remove(_ file: String) {
        guard !entries.values.contains(where: { $0.file == file || $0.previous == file }) else { return }
        unlink(settings.directory + "/" + file)
    }

    /// Whether `name` is one the cache writes: a download under way (`.part-…`), or a file named
    /// by its sha256 (and its URL's extension). Nothing else in the directory is ever removed.
    static func isCacheFile(_ name: String) -> Bool {
        if name.hasPrefix(".part-") { return true }
        let hex = name.utf8.prefix(64)
        guard hex.count == 64, hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return false
        }
        return name.utf8.count == 64 || name.utf8.dropFirst(64).first == UInt8(ascii: ".")
    }

    /// Bytes kept free on the cache's file system besides a download (the index, the system's logs).
    static let spareBytes: Int64 = 1_000_000

    /// The bytes free for an unprivileged writer on the file system of `directory`.
    static func freeBytes(_ directory: String) -> Int64? { FileSystemRoom(at: directory)?.freeBytes }

    /// A write that failed: the disk full is "no space", anything else the disk's own words.
    static func writeProblem(_ error: any Error, part: String) -> CacheProblem {
        let code = (error as NSError).domain == NSPOSIXErrorDomain ? Int32((error as NSError).code) : 0
        if code == ENOSPC || code == EDQUOT {
            return .noSpace(free: freeBytes((part as NSString).deletingLastPathComponent) ?? 0, needed: nil)
        }
        return .disk("\(part): \(error.localizedDescription)")
    }

    /// The size of a file in the cache (0 when it is not there).
    private func size(of file: String) -> Int64 {
        var info = stat()
        return stat(settings.directory + "/" + file, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// The least recently played files go until the cache is within its size with `adding` bytes
    /// more (a download to come), never `url`'s; every file counts, versions kept too.
    private func evict(keeping url: String, adding: Int64 = 0) {
        var total = adding + entries.values.reduce(0) { $0 + $1.bytes + ($1.previous.map(size(of:)) ?? 0) }
        let order = entries.values.filter { $0.url != url }
            .sorted { ($0.lastPlayed ?? $0.fetched) < ($1.lastPlayed ?? $1.fetched) }
        for e in order where total > settings.maxBytes {
            entries[e.url] = nil
            remove(e.file)
            if let p = e.previous {
                total -= size(of: p)
                remove(p)
            }
            total -= e.bytes
            logger.notice("cache: \(e.url) evicted (least recently played; the cache holds \(settings.maxBytes) bytes)")
        }
    }

    private func publish() {
        let map = entries.mapValues { settings.directory + "/" + $0.file }
        files.withLock { $0 = map }
    }

    /// The index, written atomically beside the files.
    private func saveIndex() {
        guard let data = try? JSONEncoder.cache.encode(entries.values.sorted { $0.url < $1.url }) else { return }
        do {
            try data.write(to: URL(fileURLWithPath: indexPath), options: .atomic)
        } catch {
            logger.warning("cache: \(indexPath) cannot be written: \(error.localizedDescription)")
        }
    }

    /// `.mp4` of `https://host/path/clip.mp4?x=1` (mpv knows a file by its contents, but a name helps people).
    static func fileExtension(of url: String) -> String {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        guard let last = path.split(separator: "/").last, let dot = last.lastIndex(of: "."),
            last.distance(from: dot, to: last.endIndex) <= 6
        else { return "" }
        return String(last[dot...]).lowercased()
    }
}

extension JSONDecoder {
    fileprivate static var cache: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}

extension JSONEncoder {
    fileprivate static var cache: JSONEncoder {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        return e
    }
}

/// A write to a cache file that failed, carried out of ``Blocking/run(_:)`` (FileHandle's errors
/// are not typed).
struct FileWrite: Error {
    /// The error FileHandle threw (an NSError with the system's code).
    let underlying: any Error

    static func write(_ data: Data, to handle: FileHandle) throws(FileWrite) {
        do { try handle.write(contentsOf: data) } catch { throw FileWrite(underlying: error) }
    }

    static func sync(_ handle: FileHandle) throws(FileWrite) {
        do { try handle.synchronize() } catch { throw FileWrite(underlying: error) }
    }
}
