public import Foundation
public import Playback

/// The playlist as configured, made concrete: a folder plays its media files sorted by name; a
/// file still being written (changed in the last ``settleTime`` seconds) waits until it has
/// stood still; a URL plays as it is.
public enum Playlist {
    /// How long a file must have stood still (its modification time) before it is played.
    public static let settleTime: TimeInterval = 2

    /// What a configured entry is now.
    public enum Entry: Sendable, Hashable {
        case url(String)
        case file(String)
        /// A folder with its media files ready to play, sorted by name, and how many are still being written.
        case folder(String, files: [String], writing: Int)
        case missing(String, reason: String)

        /// In words, for `check-config` and the log.
        public var description: String {
            switch self {
            case .url(let u): "\(u): a URL"
            case .file(let f): "\(f): a file"
            case .folder(let d, let files, let writing):
                "\(d): a folder with \(files.count) media file\(files.count == 1 ? "" : "s")"
                    + (writing > 0 ? " (\(writing) still being written)" : "")
            case .missing(let p, let reason): "\(p): \(reason)"
            }
        }
    }

    /// The local path an item names (`file://` taken off); `nil` for a URL of another scheme.
    public static func localPath(_ item: String) -> String? {
        if item.contains("://") && !item.hasPrefix("file://") { return nil }
        return item.hasPrefix("file://") ? (URL(string: item)?.path ?? item) : item
    }

    /// What `entry` is at `now`.
    public static func inspect(_ entry: String, now: Date = Date()) -> Entry { look(entry, now: now).entry }

    /// What `entry` is, and when the soonest of its files still being written will have stood
    /// still: one listing and one `stat` a file.
    private static func look(_ entry: String, now: Date) -> (entry: Entry, settles: Date?) {
        guard let path = localPath(entry) else { return (.url(entry), nil) }
        var info = stat()
        guard stat(path, &info) == 0 else { return (.missing(path, reason: systemError(errno)), nil) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            if let problem = readProblem(path) { return (.missing(path, reason: problem), nil) }
            return (.file(entry), nil)
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            return (.missing(path, reason: readProblem(path + "/.") ?? "cannot be listed"), nil)
        }
        var ready: [String] = [], writing = 0
        var settles: Date?
        for name in names.sorted() where !name.hasPrefix(".") {
            guard MediaFiles.all.contains(MediaFiles.fileExtension(name)) else { continue }
            let file = path + "/" + name
            var s = stat()
            guard stat(file, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: Double(s.st_mtim.tv_sec) + Double(s.st_mtim.tv_nsec) / 1e9)
            if s.st_size == 0 || now.timeIntervalSince(modified) < settleTime {
                writing += 1
                let at = modified.addingTimeInterval(settleTime + 0.1)
                if settles.map({ at < $0 }) ?? true { settles = at }
            } else {
                ready.append(file)
            }
        }
        return (.folder(path, files: ready, writing: writing), settles)
    }

    /// The items to play, in order: each folder's ready files (shuffled with `shuffle`), files and
    /// URLs as they are, missing entries left out.
    public static func expand(
        _ entries: [String], now: Date = Date(), shuffle: ((inout [String]) -> Void)? = nil
    ) -> [String] {
        scan(entries, now: now, shuffle: shuffle).items
    }

    /// ``expand(_:now:shuffle:)``, with when a file still being written will be ready (`nil`: none
    /// is), from the same look at each folder.
    public static func scan(
        _ entries: [String], now: Date = Date(), shuffle: ((inout [String]) -> Void)? = nil
    ) -> (items: [String], settles: Date?) {
        var items: [String] = []
        var settles: Date?
        for entry in entries {
            let (found, at) = look(entry, now: now)
            if let at, settles.map({ at < $0 }) ?? true { settles = at }
            items += Self.items(of: found, entry: entry, shuffle: shuffle)
        }
        return (items, settles)
    }

    /// What an entry looked at plays: a folder's ready files (shuffled with `shuffle`), a file or
    /// URL as it is, a missing file as configured (mpv tries it, and its failure is shown and
    /// skipped); a missing folder (no extension: a stick not plugged in) adds nothing.
    private static func items(of found: Entry, entry: String, shuffle: ((inout [String]) -> Void)?) -> [String] {
        switch found {
        case .url(let u): return [u]
        case .file(let f): return [f]
        case .folder(_, var files, _):
            shuffle?(&files)
            return files
        case .missing(let path, _): return MediaFiles.fileExtension(path).isEmpty ? [] : [entry]
        }
    }

    /// The directories that match `pattern` now (`*` stands for one name, at any level).
    public static func directories(matching pattern: String) -> [String] {
        var found = [""]
        for part in pattern.split(separator: "/").map(String.init) {
            var next: [String] = []
            for base in found {
                if part.contains("*") {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: base.isEmpty ? "/" : base)) ?? []
                    for n in names.sorted() where !n.hasPrefix(".") && fnmatch(part, n, 0) == 0 {
                        next.append(base + "/" + n)
                    }
                } else {
                    next.append(base + "/" + part)
                }
            }
            found = next
        }
        return found.filter {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &d) && d.boolValue
        }
    }

    /// The part of `pattern` before its first `*` (`/media` for `/media/*/*`).
    public static func fixedPrefix(of pattern: String) -> String {
        let parts = pattern.split(separator: "/").prefix { !$0.contains("*") }
        return "/" + parts.joined(separator: "/")
    }
}

extension Playlist {
    /// The playlist of `settings` on disk now, for the core: each configured entry's items with
    /// their files' stamps, a stick's files, when a file being written settles, the folders to
    /// watch, and the local time of the look.
    /// `cached` gives a remote item's file in the cache (`nil`: not downloaded yet, and the item
    /// waits; with no cache at all, every URL plays from the network).
    public static func snapshot(
        _ settings: PlayerSettings, now: Date = Date(), cached: ((String) -> String?)? = nil
    ) -> PlaylistScan {
        let shuffle: ((inout [String]) -> Void)? = settings.shuffle ? { $0.shuffle() } : nil
        var settles: Date?
        func items(_ entries: [String]) -> [PlaylistScan.Item] {
            let found = scan(entries, now: now, shuffle: shuffle)
            if let at = found.settles, settles.map({ at < $0 }) ?? true { settles = at }
            return found.items.map { PlaylistScan.Item($0, stamp: stamp($0)) }
        }
        // One look at each entry gives its items, its words and whether its folder is watched.
        var watch: [String] = []
        let entries = settings.playlist.map { entry in
            if let cached, RemoteItem.isList(entry, options: settings.itemOptions[entry]) {
                return listEntry(entry, settings: settings, cached: cached)
            }
            if let cached, RemoteItem.isCached(entry, options: settings.itemOptions[entry]) {
                guard let file = cached(entry) else {
                    return PlaylistScan.Entry(entry: entry, items: [], description: "\(entry): not downloaded yet")
                }
                return PlaylistScan.Entry(
                    entry: entry, items: [PlaylistScan.Item(file, stamp: stamp(file), origin: entry)],
                    description: "\(entry): cached as \(file)")
            }
            let (found, at) = look(entry, now: now)
            if let at, settles.map({ at < $0 }) ?? true { settles = at }
            switch found {
            case .folder, .missing: watch.append(entry)
            case .file, .url: break
            }
            let items = Self.items(of: found, entry: entry, shuffle: shuffle).map {
                PlaylistScan.Item($0, stamp: stamp($0))
            }
            return PlaylistScan.Entry(entry: entry, items: items, description: found.description)
        }
        var stick: [PlaylistScan.Item] = []
        if let pattern = settings.removableMedia {
            // The folder the sticks appear in (`/media` for `/media/*/*`), and each stick there now.
            let sticks = directories(matching: pattern)
            watch += [fixedPrefix(of: pattern)] + sticks
            watch += directories(matching: (pattern as NSString).deletingLastPathComponent)
            stick = items(sticks)
        }
        let local = LocalTime.now()
        return PlaylistScan(
            entries: entries, stick: stick, settlesIn: settles.map { $0.timeIntervalSince(now) }, watch: watch,
            weekday: local.weekday, minute: local.minute, second: local.second)
    }

    /// A remote list's entry: its lines that are files or streams over the network, each played from
    /// the cache when it is cached (a line naming anything else never reaches mpv: it is refused,
    /// named as written, cut short, with why).
    static func listEntry(_ entry: String, settings: PlayerSettings, cached: (String) -> String?) -> PlaylistScan.Entry
    {
        guard let list = cached(entry) else {
            return PlaylistScan.Entry(entry: entry, items: [], description: "\(entry): not downloaded yet")
        }
        let text: String
        switch remoteList(list) {
        case .success(let t): text = t
        case .failure(let why):
            return PlaylistScan.Entry(entry: entry, items: [], description: "\(entry): \(why); none of it plays")
        }
        let allowed = RemoteItem.streamSchemes + settings.remoteSchemes
        var refused: [PlaylistScan.Refused] = []
        let listed = RemoteItem.items(ofList: text, base: entry).filter { url in
            guard let why = RemoteItem.refusal(of: url, allowed: allowed) else { return true }
            let line = url.count > 160 ? String(url.prefix(160)) + "…" : url
            refused.append(PlaylistScan.Refused(line: line, reason: why))
            return false
        }
        let files = listed.compactMap { url in RemoteItem.isCached(url) ? cached(url).map { (url, $0) } : (url, url) }
        return PlaylistScan.Entry(
            entry: entry,
            items: files.map { PlaylistScan.Item($0.1, stamp: stamp($0.1), origin: $0.0 == $0.1 ? nil : $0.0) },
            description: "\(entry): a list of \(listed.count) items, \(files.count) ready"
                + (refused.isEmpty ? "" : ", \(refused.count) refused"),
            refused: refused)
    }

    /// The longest remote list read (bytes): a list names files, a million bytes is thousands of them.
    public static let maxListBytes = 1_000_000

    /// A remote list's text from its cached `file`, or why it is not read (over
    /// ``maxListBytes``, not text).
    public static func remoteList(_ file: String) -> Result<String, ListProblem> {
        var info = stat()
        guard stat(file, &info) == 0 else { return .failure(ListProblem("cannot be read: \(systemError(errno))")) }
        guard info.st_size <= maxListBytes else {
            return .failure(ListProblem("the list is \(info.st_size) bytes, over the \(maxListBytes) a list may have"))
        }
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8)
        else { return .failure(ListProblem("the list is not UTF-8 text")) }
        return .success(text)
    }

    /// What changes when a file changes: its size and modification time ("missing": not there; a
    /// URL has none).
    public static func stamp(_ item: String) -> String {
        guard let path = localPath(item) else { return "" }
        var s = stat()
        guard stat(path, &s) == 0 else { return "missing" }
        return "\(s.st_size):\(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec)"
    }
}

/// The local time, as schedules and the power plan read it.
public enum LocalTime {
    /// The local weekday (1 Monday … 7 Sunday), minute after midnight and second now.
    public static func now() -> (weekday: Int, minute: Int, second: Int) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let weekday = parts.tm_wday == 0 ? 7 : Int(parts.tm_wday)
        return (weekday, Int(parts.tm_hour) * 60 + Int(parts.tm_min), Int(parts.tm_sec))
    }
}

/// Why a remote list is not read.
public struct ListProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}
