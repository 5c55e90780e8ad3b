public import OrientationCore

/// What the player is asked to play, and how.
public struct PlayerSettings: Sendable, Hashable {
    /// Files, folders (their media files, by name) and URLs; empty shows the idle scene (the
    /// built-in test pattern).
    public var playlist: [String] = []
    /// Each folder's files in a new random order at each start and change.
    public var shuffle = false
    /// Network schemes a remote list may name besides ``RemoteItem/streamSchemes`` (`udp` for
    /// multicast IPTV).
    public var remoteSchemes: [String] = []
    /// How long an image shows, unless its item says otherwise (s).
    public var imageDuration = 10.0
    /// Per-item settings, by the item's path (a folder's apply to its files).
    public var itemOptions: [String: ItemOptions] = [:]
    /// An image shown whenever nothing can play (every item failed, the folders are empty), with
    /// a message that says why; the playlist is tried again every ``retryInterval``.
    public var splash: String?
    public var retryInterval: Duration = .seconds(10)
    /// mpv's audio output device (`audio-device`); `nil`: mpv's choice.
    public var audioDevice: String?
    /// Where a USB stick is mounted (`/media/*/*`, one `*` per level): while one with media files
    /// is there, its files are the playlist; when it goes, the configured playlist returns.
    public var removableMedia: String?
    public var loop = true
    /// mpv's hardware decoding: `board` (``HardwareDecoding``'s table, for the board the device
    /// tree names), else mpv's own `hwdec` value (`no`, `auto-safe`, `vaapi`, …). `[player.mpv]
    /// hwdec` wins over it.
    public var hwdec = "board"
    /// mpv options passed through (vo, hwdec, ...).
    public var mpv: [String: String] = [:]
    /// mpv's own process confines itself before it reads any media: no_new_privs, a seccomp
    /// filter, and Landlock where the kernel has it (no input device, terminal or other process;
    /// writes only to its cache and runtime places). `false` only to find out whether the
    /// confinement is what breaks a setup.
    public var confine = true
    /// Action → the mpv key names bound to it.
    public var hotkeys: [Action: [String]] = PlayerSettings.defaultHotkeys
    /// The keys a player has out of the box: `f`/`F11` and a double tap (or click) on the video
    /// full screen, `l` the lock, `a` accepts the rotate suggestion, `>`/`<` the playlist.
    public static let defaultHotkeys: [Action: [String]] = [
        .fullscreen: ["f", "F11", "MBTN_LEFT_DBL"], .toggleLock: ["l"], .acceptSuggestion: ["a"], .next: [">"],
        .previous: ["<"],
    ]
    /// This screen's tile of a video wall (`[wall]`); `nil`: the whole picture.
    public var wall: WallTile?
    /// A wall's node (`[sync] group`): each item of the playlist starts paused at its first frame
    /// (its file opened, its first picture shown), for its schedule to start it at its instant.
    public var holdStarts = false
    /// The share of a portrait screen below the video in the inline layout, left to the overlays.
    public var inlineBottomMargin = 0.4
    /// How long "Cannot play ..." stays over the video at least, even when the next file plays at once.
    public var failureMessageTime: Duration = .seconds(5)
    /// Playing, but the position has not moved for this long: the item is loaded again (`nil`: never).
    public var stallTimeout: Duration? = .seconds(10)
    /// This many stalls within ``stallWindow`` and the player gives up (the process exits non-zero).
    public var stallLimit = 3
    public var stallWindow: Duration = .seconds(600)
    /// A live stream whose picture stands still this long (and three frames' time at least) is lost: the slate shows (it never
    /// counts toward ``stallLimit``: a stream that comes and goes is what live streams do).
    public var liveStallTimeout: Duration = .milliseconds(500)
    /// While a lost stream's server cannot be reached, it is asked again this often.
    public var liveRetry: Duration = .milliseconds(500)

    public init() {}
}

/// One playlist item's own settings.
public struct ItemOptions: Sendable, Hashable {
    /// How long the image shows (s); for a folder, each of its images.
    public var duration: Double?
    public var mute: Bool?
    /// The item's shape as `fit_content` should take it, whatever its picture says.
    public var shape: ContentShape?
    /// When it may play (local time); `nil`: always.
    public var schedule: Schedule?
    /// A remote file's SHA-256 (hex): a download with another is never played.
    public var sha256: String?
    /// A live stream: played straight from its URL, never cached (`nil`: judged by its URL).
    public var live: Bool?
    /// A live stream played this many seconds behind its newest picture, held by small speed
    /// changes (`nil`: as little as mpv can).
    public var latency: Double?
    public init(
        duration: Double? = nil, mute: Bool? = nil, shape: ContentShape? = nil, schedule: Schedule? = nil,
        sha256: String? = nil, live: Bool? = nil, latency: Double? = nil
    ) {
        self.duration = duration
        self.mute = mute
        self.shape = shape
        self.schedule = schedule
        self.sha256 = sha256
        self.live = live
        self.latency = latency
    }
}

/// How a remote playlist item is played. An `http://` or `https://` URL whose path ends in a
/// media file's extension (`.mp4`, `.png`, …; not a playlist such as `.m3u8`) is a file: played
/// from the cache. Anything else remote is a stream, played straight from the network: other
/// schemes (`rtsp://`, `rtmp://`, `srt://`, …), HLS and DASH manifests, and URLs without an
/// extension (an endless HTTP stream looks like that). An item's `live` says it outright:
/// `live = true` a stream, `live = false` a file (a CMS's `https://cms/content?id=5`).
public enum RemoteItem {
    /// Whether `item` is a remote playlist file: an `http://` or `https://` URL whose path ends
    /// in `.m3u` or `.txt`, a list of URLs (one a line; `#` lines are comments; a relative one is
    /// taken from the list's own address). The list is cached as a file is, and so is each of
    /// its files.
    /// Whether a playlist entry names a SMIL index (a file or a URL): its path (a URL's, before
    /// `?`) ends in `.smil` or `.smi`.
    public static func isIndex(_ entry: String) -> Bool {
        let path = (entry.split(separator: "?", maxSplits: 1).first.map(String.init) ?? entry).lowercased()
        return path.hasSuffix(".smil") || path.hasSuffix(".smi")
    }

    public static func isList(_ item: String, options: ItemOptions? = nil) -> Bool {
        let lower = item.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), options?.live != true else { return false }
        let path = lower.split(separator: "?", maxSplits: 1).first.map(String.init) ?? lower
        return path.hasSuffix(".m3u") || path.hasSuffix(".txt")
    }

    /// The items a remote playlist file lists, absolute (`base`: the list's own URL).
    public static func items(ofList text: String, base: String) -> [String] {
        let root =
            base.firstRange(of: "://").map { r in
                base[..<(base[r.upperBound...].firstIndex(of: "/") ?? base.endIndex)]
            }.map(String.init) ?? base
        let folder = base.lastIndex(of: "/").map { String(base[...$0]) } ?? base + "/"
        return text.split(whereSeparator: \.isNewline).compactMap { raw in
            let line = String(raw.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            if line.contains("://") { return line }
            return line.hasPrefix("/") ? root + line : folder + line
        }
    }

    /// The network schemes a line of a remote list may have by default: files and streams over
    /// the network, never a local file, a device, a filter graph or a protocol that opens others.
    public static let streamSchemes = ["http", "https", "rtsp", "rtsps", "rtmp", "rtmps", "srt"]

    /// Why a remote list's `line` is refused (its scheme is not one of `allowed`); `nil`: it may
    /// play. mpv would play any of its URLs as the operator's own (`file://`, `av://`, `edl://`,
    /// `lavf://`, `memory://`, `unix://` …), so only these are let through.
    public static func refusal(of line: String, allowed: [String]) -> String? {
        guard let end = line.range(of: "://")?.lowerBound else { return "refused: not a URL" }
        let scheme = line[..<end].lowercased()
        guard !allowed.contains(scheme) else { return nil }
        let named =
            scheme.isEmpty || scheme.count > 16
                || !scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
            ? "this scheme" : "\(scheme)://"
        return
            "refused: \(named) is not allowed in a remote list (it may name \(allowed.joined(separator: ", ")) URLs; "
            + "[player] remote_schemes adds others)"
    }

    /// Whether `item` is a remote file to cache.
    public static func isCached(_ item: String, options: ItemOptions? = nil) -> Bool {
        let lower = item.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        if isList(item, options: options) || isIndex(item) { return true }
        if let live = options?.live { return !live }
        let path = lower.split(separator: "?", maxSplits: 1).first.map(String.init) ?? lower
        let afterHost = path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(3).first
        return afterHost.map { MediaFiles.all.contains(MediaFiles.fileExtension(String($0))) } ?? false
    }

    /// Whether `item` is a live stream (remote, and not a file to cache).
    public static func isLive(_ item: String, options: ItemOptions? = nil) -> Bool {
        item.contains("://") && !item.hasPrefix("file://") && !item.hasPrefix("av://")
            && !isCached(item, options: options)
    }
}

/// The built-in test pattern, shown when the playlist is empty.
public let testPattern = "av://lavfi:testsrc2=size=1280x720:rate=25"

/// The media files a folder contributes, by extension (lower case): the folder scan takes these,
/// and the player's core shows an image by its own rules.
public enum MediaFiles {
    public static let video: Set<String> = [
        "mp4", "m4v", "mkv", "webm", "mov", "avi", "mpg", "mpeg", "ts", "m2ts", "ogv", "wmv", "flv", "3gp",
    ]
    public static let image: Set<String> = ["png", "jpg", "jpeg", "webp", "gif", "bmp"]
    public static let audio: Set<String> = ["mp3", "ogg", "oga", "opus", "flac", "wav", "m4a", "aac"]
    public static var all: Set<String> { video.union(image).union(audio) }

    /// The extension of the last name of `path`, lower case (empty when it has none).
    public static func fileExtension(_ path: String) -> String {
        let name = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path[...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Whether `path` names an image, by its extension.
    public static func isImage(_ path: String) -> Bool { image.contains(fileExtension(path)) }
}
