public import Diagnostics
import Foundation
import TOML

/// What the operator's page may change in the configuration, unless `[web] edit = "all"`: no
/// more than an operator at the console would want a browser to. A key that runs programs, reads
/// or writes a path of its choosing, opens a device or a listener, or widens what may play is
/// shown on the page, but a save that changes it is refused at its line; so is an mpv option
/// outside ``safeMPVOptions``, a playlist or clip entry that is a filter graph or a local URL
/// (`av://`, `lavfi`, `edl://`, `file://`, …), and a local path outside the folders Upright
/// already uses (the upload folder, the current playlist's folders): the page's check is then no
/// way to learn whether a path exists elsewhere.
public enum PageEdit {
    /// Keys (dotted; a trailing `*` covers a table's every key) the page may not change.
    static let guarded = [
        "sensor.uri", "sensor.device", "lock.evdev", "input.devices", "input.grab", "screen.cec",
        "display.backend", "display.output", "display.touch", "display.kiosk", "metrics.textfile", "metrics.listen",
        "proof_of_play.file", "mqtt.url", "mqtt.ca_file", "mqtt.password_file", "mqtt.username", "mqtt.password",
        "sync.key_file", "sync.group", "web.*", "cache.directory", "cache.ca_file", "player.audio_device",
        "player.remote_schemes", "player.splash", "player.removable_media", "player.confine",
    ]

    /// mpv options the page may set: how the picture and sound are made, never a path, a
    /// program, a script, a device or an output (`vo`, `script`, `log-file`, `input-commands`,
    /// `stream-record`, `screenshot-directory`, … stay at the console).
    public static let safeMPVOptions: Set<String> = [
        "hwdec", "hwdec-codecs", "video-sync", "interpolation", "tscale", "deband", "scale", "cscale", "dscale",
        "dither-depth", "keepaspect", "panscan", "video-aspect-override", "video-unscaled", "video-zoom",
        "volume", "mute", "audio-channels", "sid", "aid", "vid", "alang", "slang", "sub-visibility", "sub-font-size",
        "loop-file", "cache", "cache-secs", "demuxer-max-bytes", "demuxer-readahead-secs", "network-timeout",
        "framedrop", "video-latency-hacks", "video-timing-offset", "deinterlace", "brightness", "contrast",
        "saturation", "gamma", "hue", "background", "osd-level", "image-display-duration", "speed",
    ]

    /// Entries a page may put in a playlist, a clip or the splash: a local path, or a URL of
    /// these schemes (what a remote list may hold, as the player allows it).
    static let playableSchemes: Set<String> = [
        "http", "https", "rtsp", "rtsps", "rtmp", "rtmps", "srt", "udp",
    ]

    /// The changes in `posted` (the file saved from the page) against `current` (the file now)
    /// that the page may not make, each an error at its line. Text that is no TOML gets none
    /// here (the check says why). `uploads`: the page's upload folder.
    public static func refusals(posted: String, current: String, file: String, uploads: String) -> [Diagnostic] {
        guard let new = try? TOMLTable(parsing: posted) else { return [] }
        let old = (try? TOMLTable(parsing: current)) ?? TOMLTable()
        let folders = ([uploads] + usedFolders(old)).filter { !$0.isEmpty }
        let map = SourceMap(posted)
        var out: [Diagnostic] = []
        func refuse(_ path: [String], _ why: String) {
            let place = map.valuePlace(of: path)
            out.append(
                Diagnostic(
                    file: file, line: place?.line, column: place?.column, severity: .error,
                    message: "'\(path.joined(separator: "."))' \(why) from the operator's page; change it at the "
                        + "console (or set [web] edit = \"all\")"))
        }
        let (before, after) = (values(old), values(new))
        for path in Set(before.keys).union(after.keys).sorted() where before[path] != after[path] {
            let parts = path.split(separator: ".").map(String.init)
            if isGuarded(parts) {
                refuse(parts, after[path] == nil ? "may not be removed" : "may not be changed")
            } else if parts.count == 3, parts[0] == "player", parts[1] == "mpv", !safeMPVOptions.contains(parts[2]) {
                refuse(parts, "is an mpv option the page may not set (it may run code, or read or write files)")
            }
        }
        for (path, value) in after where before[path] != value && holdsEntries(path) {
            for entry in entries(value) {
                let parts = path.split(separator: ".").map(String.init)
                if !playable(entry) {
                    refuse(parts, "may not name \(entry.prefix(60)): not a media file or stream")
                } else if !entry.contains("://"), !within(entry, folders) {
                    refuse(parts, "may not name \(entry.prefix(60)): outside the folders Upright uses")
                }
            }
        }
        return out
    }

    /// The folders the current playlist uses: its folders, and the folders of its files.
    static func usedFolders(_ table: TOMLTable) -> [String] {
        let local = entries(table["player"]?.table?["playlist"] ?? .array([])).filter {
            $0.hasPrefix("/") && !$0.split(separator: "/").contains("..")
        }
        return local.map { entry in
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: entry, isDirectory: &isFolder), isFolder.boolValue {
                return entry
            }
            return (entry as NSString).deletingLastPathComponent
        }
    }

    /// Whether `entry` is an absolute path in (or one of) `folders`, with no `..`.
    static func within(_ entry: String, _ folders: [String]) -> Bool {
        guard entry.hasPrefix("/"), !entry.split(separator: "/").contains("..") else { return false }
        return folders.contains { folder in
            let f = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            return entry == f || entry.hasPrefix(f + "/")
        }
    }

    static func isGuarded(_ parts: [String]) -> Bool {
        let dotted = parts.joined(separator: ".")
        return guarded.contains { $0.hasSuffix(".*") ? dotted.hasPrefix($0.dropLast()) : $0 == dotted }
    }

    /// Keys whose values are entries to play.
    static func holdsEntries(_ path: String) -> Bool {
        path == "player.playlist" || (path.hasPrefix("scenes.") && path.hasSuffix(".clip"))
    }

    static func entries(_ value: TOMLValue) -> [String] {
        if let s = value.string { return [s] }
        return (value.array ?? []).flatMap { item -> [String] in
            if let s = item.string { return [s] }
            return item.table?["path"]?.string.map { [$0] } ?? []
        }
    }

    /// A local path, or a URL of a playable scheme.
    static func playable(_ entry: String) -> Bool {
        guard let colon = entry.firstIndex(of: ":"), !entry.hasPrefix("/") else { return true }
        let scheme = entry[..<colon].lowercased()
        guard entry[colon...].hasPrefix("://") || scheme == "lavfi" || scheme == "av" || scheme == "memory" else {
            return true  // a relative name with a colon in it
        }
        return playableSchemes.contains(scheme)
    }

    /// Every key's value, by dotted path; a table's keys each on its own.
    static func values(_ table: TOMLTable, prefix: String = "") -> [String: TOMLValue] {
        var out: [String: TOMLValue] = [:]
        for key in table.keys {
            let path = prefix.isEmpty ? key : prefix + "." + key
            if let inner = table[key]?.table {
                out.merge(values(inner, prefix: path)) { a, _ in a }
            } else if let value = table[key] {
                out[path] = value
            }
        }
        return out
    }
}
