import Config
import Files
import Foundation
import Logging
import Playback
import RemoteCache
import SMIL
import Session
import Synchronization
import Wire

/// The playlist's `http://` and `https://` files: downloaded into the cache, asked again every
/// `[cache] refresh` seconds (conditionally), with a back-off while the server fails, and handed
/// to the player as local files. A new download is taken at the player's next item change.
/// With the cache unusable (its directory cannot be made), URLs play from the network as they
/// are, and the status says why.
actor RemoteItems {
    private let settings: CacheSettings
    /// Who the player is to the servers it asks (``PlayerIdentity``).
    private let userAgent: String?
    private let directory: String
    private let logger: Logger
    /// One element each time a file arrives (a first download, a new version).
    nonisolated let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private var cache: RemoteCache?
    /// Why the cache cannot be used; `nil` while it can.
    private var unusable: String?
    private var schedule: RemoteSchedule
    private var options: [String: ItemOptions]
    private var playlist: [String]
    private let origin = ContinuousClock.now
    /// How many times the loop has asked for what is due (a test's measure).
    private(set) var turns = 0
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// The cache, readable from the player's scan on any thread.
    private nonisolated let current = Mutex<(RemoteCache?, bypass: Bool)>((nil, false))

    init(
        settings: CacheSettings, playlist: [String], options: [String: ItemOptions], userAgent: String? = nil,
        logger: Logger
    ) {
        self.settings = settings
        self.userAgent = userAgent
        self.logger = logger
        self.options = options
        self.playlist = playlist
        (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        schedule = RemoteSchedule(interval: settings.refresh)
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        directory = settings.resolvedDirectory()
        if !Self.cachedURLs(playlist, options: options).isEmpty {
            (cache, unusable) = Self.makeCache(settings, directory: directory, userAgent: userAgent, logger: logger)
            current.withLock { [cache] in $0 = (cache, cache == nil) }
        }
    }

    /// The cache in `directory`, or why it cannot be made there.
    static func makeCache(_ settings: CacheSettings, directory: String, userAgent: String?, logger: Logger)
        -> (RemoteCache?, String?)
    {
        do {
            let made = try RemoteCache(
                settings: RemoteCacheSettings(
                    directory: directory, maxBytes: Int64(settings.maxMB * 1_000_000),
                    caFile: settings.caFile.isEmpty ? nil : settings.caFile,
                    readTimeout: .milliseconds(Int64(settings.readTimeout * 1000)), userAgent: userAgent),
                logger: logger)
            logger.notice("cache: \(directory)")
            return (made, nil)
        } catch {
            logger.warning("cache: \(error); remote items play from the network")
            return (nil, error.description)
        }
    }

    /// The playlist's items that are cached (not streams), and the files of its remote lists
    /// as far as they are cached (`cached`: a URL's file).
    static func cachedURLs(
        _ playlist: [String], options: [String: ItemOptions], cached: (String) -> String? = { _ in nil }
    ) -> [String] {
        var urls: [String] = []
        for item in playlist where RemoteItem.isCached(item, options: options[item]) {
            urls.append(item)
            if RemoteItem.isIndex(item), let file = cached(item) {
                urls += indexMedia(file, of: item).filter { !urls.contains($0) }
                continue
            }
            guard RemoteItem.isList(item, options: options[item]), let file = cached(item),
                case .success(let text) = Playlist.remoteList(file)
            else { continue }
            urls += RemoteItem.items(ofList: text, base: item).filter { RemoteItem.isCached($0) && !urls.contains($0) }
        }
        return urls
    }

    /// The files a cached SMIL index (`file`, from `url`) plays or fetches ahead that the cache
    /// keeps: its `http(s)` media, resolved against the index. Streams play from the network.
    static func indexMedia(_ file: String, of url: String) -> [String] {
        guard let bytes = readPrefix(file, limit: XMLTree.maxBytes + 1),
            case .success(let doc) = SMILDocument.read(bytes, file: url)
        else { return [] }
        return doc.sources.compactMap { try? MediaAddress.resolve($0, against: url).get() }.filter {
            let scheme = $0.prefix { $0 != ":" }.lowercased()
            return scheme == "http" || scheme == "https"
        }
    }

    /// What the player plays for `url`: its cached file; the URL itself when the cache cannot be
    /// used; `nil` while it is not downloaded.
    nonisolated func file(for url: String) -> String? {
        let (cache, bypass) = current.withLock { $0 }
        if bypass { return url }
        return cache?.cachedFile(url)
    }

    private var now: Double { origin.duration(to: .now).seconds }

    /// A new playlist (a reload): its URLs are asked for, ones gone are forgotten; the cache is
    /// made when the first remote file comes.
    func setPlaylist(_ playlist: [String], options: [String: ItemOptions]? = nil) {
        if let options { self.options = options }
        self.playlist = playlist
        if cache == nil, !Self.cachedURLs(playlist, options: self.options).isEmpty {
            (cache, unusable) = Self.makeCache(settings, directory: directory, userAgent: userAgent, logger: logger)
            current.withLock { [cache] in $0 = (cache, cache == nil) }
        }
        schedulePlaylist()
        wake.yield()
    }

    /// The playlist's remote files, and those its cached lists name, into the schedule (new ones
    /// due at once, ones no longer there forgotten).
    private func schedulePlaylist() {
        let made = cache
        let urls = Self.cachedURLs(playlist, options: options) { made?.cachedFile($0) }
        schedule.set(urls, cached: { made?.cachedFile($0) != nil }, at: now)
    }

    /// Notes that `url` plays (the least recently played are evicted first).
    func played(_ url: String) async { await cache?.played(url) }

    /// Asks for what is due, then sleeps until the next is (or a new playlist comes), until cancelled.
    func run() async {
        schedulePlaylist()
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            askDue()
            turns += 1
            let wait = schedule.nextDeadline.map { max(0.05, $0 - now) } ?? 3600
            // Whichever first: the deadline, or a wake (a new playlist). A sleeper cancelled
            // wakes nothing: it did, and each wake then cancelled the next sleeper, which woke
            // the loop again, a new sleeper (and its hour's timer) each turn, without end.
            let sleeper = Task { [wake] in
                guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
                wake.yield()
            }
            let woken: Void? = await iterator.next()
            sleeper.cancel()
            if woken == nil { break }
        }
        await cache?.shutdown()
        arrived.finish()
    }

    /// Starts asking for what is due, as many at once as the schedule has places; each answer
    /// (``answered(_:had:result:)``) frees its place and wakes the loop.
    private func askDue() {
        guard let cache else { return }
        for url in schedule.take(at: now) {
            let had = cache.cachedFile(url) != nil
            let sha256 = options[url]?.sha256
            Task { [weak self] in
                let result = await cache.refresh(url, sha256: sha256)
                await self?.answered(url, had: had, result: result)
            }
        }
    }

    private func answered(_ url: String, had: Bool, result: Result<Bool, CacheProblem>) {
        defer { wake.yield() }
        switch result {
        case .success(let fresh):
            if schedule.items[url]?.problem != nil { logger.notice("cache: \(url) reached again") }
            schedule.succeeded(url, at: now)
            // A new list: its files are asked for (and ones it no longer lists forgotten).
            if fresh, RemoteItem.isList(url, options: options[url]) || RemoteItem.isIndex(url) { schedulePlaylist() }
            if fresh {
                logger.notice(
                    had
                        ? "cache: a new version of \(url) (played from the next item change)"
                        : "cache: \(url) downloaded")
                arrived.yield()
            }
        case .failure(let problem):
            let first = schedule.items[url]?.problem == nil
            schedule.failed(url, why: problem.description, at: now)
            let next = (schedule.items[url]?.nextAt ?? now) - now
            let plays = had ? "the cached copy plays" : "it is skipped until it comes"
            if first {
                logger.warning("cache: \(url): \(problem); \(plays); asked again in \(Int(next.rounded())) s")
            }
        }
    }

    /// The ETag its server gave the cached copy of `url` (a SMIL index's, for the status).
    func etag(of url: String) async -> String? { await cache?.entry(url)?.etag }

    /// A SMIL index's own `Refresh`: it is asked for at that interval (`nil`: the cache's).
    func setInterval(_ url: String, _ seconds: Double?) {
        schedule.setInterval(url, seconds, at: now)
        wake.yield()
    }

    /// Each remote item's state for the status.
    func status() async -> [RemoteItemStatus] {
        let t = now
        var out: [RemoteItemStatus] = []
        for (url, item) in schedule.items.sorted(by: { $0.key < $1.key }) {
            var s = RemoteItemStatus(url: url, state: unusable == nil ? schedule.state(of: url) : "uncached")
            if let e = await cache?.entry(url) {
                s.file = directory + "/" + e.file
                s.bytes = e.bytes
                s.fetched = ISO8601DateFormatter().string(from: e.fetched)
            }
            s.problem = unusable ?? item.problem
            s.failingFor = item.failingSince.map { ((t - $0) * 10).rounded() / 10 }
            s.nextTry = (max(0, item.nextAt - t) * 10).rounded() / 10
            out.append(s)
        }
        return out
    }
}
