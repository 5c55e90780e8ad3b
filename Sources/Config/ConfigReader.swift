import Diagnostics
import Files
import Foundation
import Input
import OrientationCore
import Playback
import Settings
import TOML

/// Walks the TOML tables, converts and checks each value, and keeps a diagnostic with its place
/// for everything wrong.
struct ConfigReader {
    let file: String
    let map: SourceMap
    var diagnostics: [Diagnostic] = []

    static let sections: [String: [String]] = [
        "app": ["supported", "launch"],
        "transition": ["duration"],
        "sensor": ["uri", "device", "rate_hz", "mount_matrix", "tablet_mode"],
        "lock": ["locked", "evdev", "relock_after"],
        "display": ["backend", "output", "natural", "supported", "mode", "touch", "kiosk", "wait"],
        "scenes": [],
        "player": [
            "playlist", "loop", "stall_timeout", "mpv", "shuffle", "confine", "image_duration", "splash",
            "audio_device",
            "removable_media", "hwdec", "remote_schemes",
        ],
        "hotkeys": [],
        "input": ["devices", "grab", "clip_presses"],
        "metrics": ["textfile", "listen", "interval", "items"],
        "screen": ["on", "off", "days", "cec", "idle_off", "toast_seconds"],
        "proof_of_play": ["file", "max_mb", "keep"],
        "update": ["source", "interval"],
        "mqtt": [
            "url", "ca_file", "username", "password", "password_file", "prefix", "device", "discovery",
            "discovery_prefix", "screenshot_interval",
        ],
        "sync": ["group", "follow", "key_file"],
        "wall": ["columns", "rows", "column", "row", "bezel", "orientation"],
        "web": ["listen", "auth", "password_file", "certificate", "key", "uploads", "upload_max_mb", "edit"],
        "cache": ["directory", "max_mb", "refresh", "ca_file", "read_timeout"],
        "classifier": classifierKeys,
    ]
    static let sceneKeys = [
        "supported", "autorotate", "preferred", "strategy", "force_when_locked", "clip", "fit_content", "tablet_mode",
    ]
    static let classifierKeys = OrientationClassifier.Parameters.fields.map(\.name)

    // MARK: - Diagnostics

    mutating func report(_ severity: Diagnostic.Severity, _ message: String, at place: SourceMap.Place?) {
        diagnostics.append(
            Diagnostic(
                file: file, line: place?.line, column: place?.column, severity: severity,
                message: message))
    }

    mutating func error(_ message: String, at path: [String]) { report(.error, message, at: map.valuePlace(of: path)) }

    mutating func unknownKeys(in table: TOMLTable, path: [String], known: [String]) {
        for key in table.keys.sorted() where !known.contains(key) {
            let place = map.place(of: path + [key])
            let name = (path + [key]).joined(separator: ".")
            if let near = closest(key, in: known) {
                report(.warning, "unknown key '\(name)'; did you mean '\(near)'?", at: place)
            } else {
                report(.warning, "unknown key '\(name)'; it is ignored", at: place)
            }
        }
    }

    // MARK: - Values

    /// The value at `path` converted by `convert`; an error saying what was `expected` when it does
    /// not convert; `nil` when the key is absent or wrong.
    mutating func value<T>(
        _ table: TOMLTable, _ path: [String], expected: String, _ convert: (TOMLValue) -> T?
    ) -> T? {
        guard let v = table[path.last!] else { return nil }
        guard let converted = convert(v) else {
            error("'\(path.joined(separator: "."))' must be \(expected), not \(v.typeName)", at: path)
            return nil
        }
        return converted
    }

    mutating func string(_ table: TOMLTable, _ path: [String]) -> String? {
        value(table, path, expected: "a string") { $0.string }
    }

    mutating func bool(_ table: TOMLTable, _ path: [String]) -> Bool? {
        value(table, path, expected: "true or false") { $0.bool }
    }

    /// A path setting: absolute, or empty for none; an error says so otherwise.
    mutating func absolutePath(_ table: TOMLTable, _ path: [String]) -> String? {
        guard let file = string(table, path) else { return nil }
        guard file.isEmpty || file.hasPrefix("/") else {
            error("'\(path.joined(separator: "."))' must be an absolute path, not '\(file)'", at: path)
            return nil
        }
        return file
    }

    /// A number within `range`; an error naming the range and its `unit` otherwise.
    mutating func number(_ table: TOMLTable, _ path: [String], in range: ClosedRange<Double>, _ unit: String) -> Double?
    {
        guard let v = number(table, path) else { return nil }
        guard range.contains(v) else {
            error(
                "'\(path.joined(separator: "."))' must be \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)) \(unit), not \(v)",
                at: path)
            return nil
        }
        return v
    }

    static func plain(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    mutating func number(_ table: TOMLTable, _ path: [String]) -> Double? {
        value(table, path, expected: "a number") { $0.double ?? $0.int.map(Double.init) }
    }

    mutating func orientation(_ table: TOMLTable, _ path: [String]) -> InterfaceOrientation? {
        guard let name = string(table, path) else { return nil }
        guard let o = InterfaceOrientation(name: name) else {
            report(.error, unknownOrientation(name), at: map.valuePlace(of: path))
            return nil
        }
        return o
    }

    mutating func mask(_ table: TOMLTable, _ path: [String]) -> OrientationMask? {
        guard let v = table[path.last!] else { return nil }
        guard let array = v.array else {
            error("'\(path.joined(separator: "."))' must be a list of orientations, not \(v.typeName)", at: path)
            return nil
        }
        var mask = OrientationMask()
        var ok = true
        for element in array {
            guard let name = element.string else {
                error("'\(path.joined(separator: "."))' must list orientation names, not \(element.typeName)", at: path)
                ok = false
                continue
            }
            guard let o = InterfaceOrientation(name: name) else {
                report(.error, unknownOrientation(name), at: map.elementPlace(of: path, element: name))
                ok = false
                continue
            }
            mask.insert(OrientationMask(o))
        }
        return ok ? mask : nil
    }

    mutating func strings(_ table: TOMLTable, _ path: [String]) -> [String]? {
        guard let v = table[path.last!] else { return nil }
        if let s = v.string { return [s] }
        if let a = v.array, a.allSatisfy({ $0.string != nil }) { return a.compactMap(\.string) }
        error("'\(path.joined(separator: "."))' must be a string or a list of strings, not \(v.typeName)", at: path)
        return nil
    }

    func unknownOrientation(_ name: String) -> String {
        var message =
            "unknown orientation '\(name)'; expected one of: "
            + InterfaceOrientation.allNames.joined(separator: ", ")
        if DeviceOrientation(name: name) != nil {
            message += " ('\(name)' is a device orientation, not an interface one)"
        }
        return message
    }

    // MARK: - Sections

    /// Reads `root` over `base` (the defaults, or the files read before this one): what the file
    /// sets replaces what was there, and everything else stays.
    mutating func read(_ root: TOMLTable, onto base: UprightConfiguration = UprightConfiguration())
        -> UprightConfiguration
    {
        var c = base
        unknownKeys(in: root, path: [], known: Array(Self.sections.keys))
        var scenes = base.policy.scenes
        var policy = c.policy
        if let app = section(root, "app") {
            policy.appSupported = mask(app, ["app", "supported"]) ?? policy.appSupported
            policy.launch = orientation(app, ["app", "launch"]) ?? policy.launch
        }
        if let t = section(root, "transition"), let d = number(t, ["transition", "duration"]) {
            if d >= 0 {
                policy.transitionDuration = d
            } else {
                error("'transition.duration' must be 0 or more seconds, not \(d)", at: ["transition", "duration"])
            }
        }
        if let s = section(root, "sensor") { readSensor(s, into: &c.sensor) }
        if let l = section(root, "lock") {
            c.lock.locked = bool(l, ["lock", "locked"]) ?? c.lock.locked
            c.lock.evdev = string(l, ["lock", "evdev"]).map(LockSwitchSetting.init) ?? c.lock.evdev
            if let r = number(l, ["lock", "relock_after"], in: 0...86_400, "seconds") {
                c.lock.relockAfter = r > 0 ? .milliseconds(Int64((r * 1000).rounded())) : nil
            }
        }
        if let d = section(root, "display") {
            readDisplay(d, into: &c.display)
            policy.displaySupported = mask(d, ["display", "supported"]) ?? policy.displaySupported
        }
        if let s = section(root, "scenes") { readScenes(s, into: &scenes) }
        if let p = section(root, "player") { readPlayer(p, into: &c.player) }
        if let h = section(root, "hotkeys") { c.player.hotkeys = readHotkeys(h, onto: c.player.hotkeys) }
        if let i = section(root, "input") { readInput(i, into: &c.input, presses: &policy.clipPresses) }
        if let m = section(root, "metrics") { readMetrics(m, into: &c.metrics) }
        if let m = section(root, "mqtt") { readMQTT(m, into: &c.mqtt) }
        if let s = section(root, "sync") { readSync(s, into: &c.sync, mqtt: c.mqtt) }
        if let w = section(root, "wall") { readWall(w, into: &c.player, launch: policy.launch) }
        if let w = section(root, "web") { readWeb(w, into: &c.web) }
        if let k = section(root, "cache") { readCache(k, into: &c.cache) }
        if let p = section(root, "proof_of_play") { readProofOfPlay(p, into: &c.proofOfPlay) }
        if let u = section(root, "update") { readUpdate(u, into: &c.update) }
        if let s = section(root, "screen") { readScreen(s, into: &c) }
        if let k = section(root, "classifier") { readClassifier(k, into: &c.classifier) }
        c.policy = PolicyConfiguration(
            appSupported: policy.appSupported, launch: policy.launch, displaySupported: policy.displaySupported,
            scenes: Array(scenes.values), initialScene: policy.initialScene,
            transitionDuration: policy.transitionDuration)
        c.policy.clipPresses = policy.clipPresses
        return c
    }

    /// The table `[name]`, its unknown keys reported; `nil` when absent or not a table.
    mutating func section(_ root: TOMLTable, _ name: String) -> TOMLTable? {
        guard let v = root[name] else { return nil }
        guard let t = v.table else {
            error("'\(name)' must be a table ([\(name)]), not \(v.typeName)", at: [name])
            return nil
        }
        if name != "scenes" && name != "hotkeys" { unknownKeys(in: t, path: [name], known: Self.sections[name] ?? []) }
        return t
    }

    mutating func readSensor(_ s: TOMLTable, into sensor: inout SensorSettings) {
        if let text = string(s, ["sensor", "uri"]) {
            if let uri = SensorURI(parsing: text) {
                sensor.uri = uri
            } else {
                error("bad sensor URI '\(text)'; expected \(SensorURI.expected)", at: ["sensor", "uri"])
            }
        }
        sensor.device = string(s, ["sensor", "device"]) ?? sensor.device
        if let r = number(s, ["sensor", "rate_hz"]) {
            if r > 0 && r <= 1000 {
                sensor.rateHz = r
            } else {
                error("'sensor.rate_hz' must be above 0 and at most 1000, not \(r)", at: ["sensor", "rate_hz"])
            }
        }
        sensor.mountMatrix = string(s, ["sensor", "mount_matrix"]) ?? sensor.mountMatrix
        sensor.tabletMode = choice(s, ["sensor", "tablet_mode"], "tablet_mode") ?? sensor.tabletMode
    }

    /// One of `T`'s names at `path`; an error naming `what` and every name otherwise.
    mutating func choice<T: RawRepresentable<String> & CaseIterable>(
        _ table: TOMLTable, _ path: [String], _ what: String
    ) -> T? {
        guard let name = string(table, path) else { return nil }
        if let value = T(rawValue: name) { return value }
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        error("unknown \(what) '\(name)'; expected one of: \(names)", at: path)
        return nil
    }

    mutating func readDisplay(_ d: TOMLTable, into display: inout DisplaySettings) {
        display.backend = choice(d, ["display", "backend"], "display backend") ?? display.backend
        display.output = string(d, ["display", "output"]) ?? display.output
        display.natural = orientation(d, ["display", "natural"]) ?? display.natural
        if let m = string(d, ["display", "mode"]) {
            if m == "auto" {
                display.mode = nil
            } else if let mode = DisplayMode(m) {
                display.mode = mode
            } else {
                error(
                    "bad display mode '\(m)'; expected \"auto\" or WIDTHxHEIGHT, such as \"800x1280\"",
                    at: ["display", "mode"])
            }
        }
        display.touch = strings(d, ["display", "touch"]) ?? display.touch
        display.kiosk = bool(d, ["display", "kiosk"]) ?? display.kiosk
        if let w = number(d, ["display", "wait"]) {
            if w == 0 {
                display.wait = nil
            } else if w > 0, w <= 86400 {
                display.wait = .milliseconds(Int64(w * 1000))
            } else {
                error("'display.wait' must be 0 (for ever) or up to 86400 seconds, not \(w)", at: ["display", "wait"])
            }
        }
    }

    mutating func readScenes(_ s: TOMLTable, into scenes: inout [String: Scene]) {
        for name in s.keys.sorted() {
            let path = ["scenes", name]
            guard let t = s[name]?.table else {
                error("'scenes.\(name)' must be a table ([scenes.\(name)])", at: path)
                continue
            }
            unknownKeys(in: t, path: path, known: Self.sceneKeys)
            var scene = scenes[name] ?? Scene(name)
            if let m = mask(t, path + ["supported"]) { scene.supported = m }
            if let a = bool(t, path + ["autorotate"]) { scene.autorotate = a }
            if let p = orientation(t, path + ["preferred"]) { scene.preferred = p }
            if let f = bool(t, path + ["force_when_locked"]) { scene.forceWhenLocked = f }
            if let f = bool(t, path + ["fit_content"]) { scene.fitContent = f }
            if let clip = string(t, path + ["clip"]) {
                scene.clip = clip
                if !clip.contains("://") || clip.hasPrefix("file://"), let problem = readProblem(clip) {
                    // A stick plugged in later may bring it: a warning; at run time the clip is skipped.
                    report(
                        .warning, "'scenes.\(name).clip': \(clip): \(problem)", at: map.valuePlace(of: path + ["clip"]))
                }
            }
            scene.strategy = choice(t, path + ["strategy"], "strategy") ?? scene.strategy
            if let mode: TabletModeSetting = choice(t, path + ["tablet_mode"], "tablet_mode") {
                scene.followsTabletMode = mode == .auto
            }
            scenes[name] = scene
        }
    }

    mutating func readPlayer(_ p: TOMLTable, into player: inout PlayerSettings) {
        if let list = p["playlist"] { readPlaylist(list, into: &player) }
        player.shuffle = bool(p, ["player", "shuffle"]) ?? player.shuffle
        player.confine = bool(p, ["player", "confine"]) ?? player.confine
        if let splash = string(p, ["player", "splash"]) {
            player.splash = splash.isEmpty ? nil : splash
            if !splash.isEmpty, let problem = readProblem(splash) {
                report(
                    .warning, "'player.splash': \(splash): \(problem)", at: map.valuePlace(of: ["player", "splash"]))
            }
        }
        if let media = string(p, ["player", "removable_media"]) {
            if media.isEmpty {
                player.removableMedia = nil
            } else if media.hasPrefix("/") {
                player.removableMedia = media
            } else {
                error(
                    "'player.removable_media' must be an absolute path pattern such as \"/media/*/*\"",
                    at: ["player", "removable_media"])
            }
        }
        if let schemes = strings(p, ["player", "remote_schemes"]) { readRemoteSchemes(schemes, into: &player) }
        if let device = string(p, ["player", "audio_device"]) {
            player.audioDevice = device.isEmpty || device == "auto" ? nil : device
        }
        if let hwdec = string(p, ["player", "hwdec"]) {
            if hwdec.isEmpty || hwdec.contains(where: { $0.isWhitespace }) {
                error(
                    "'player.hwdec' must be \"board\" or one of mpv's hwdec values (no, auto-safe, vaapi, ...), not '\(hwdec)'",
                    at: ["player", "hwdec"])
            } else {
                player.hwdec = hwdec
            }
        }
        if let d = number(p, ["player", "image_duration"]) {
            if d > 0 {
                player.imageDuration = d
            } else {
                error("'player.image_duration' must be above 0 seconds, not \(d)", at: ["player", "image_duration"])
            }
        }
        player.loop = bool(p, ["player", "loop"]) ?? player.loop
        if let t = number(p, ["player", "stall_timeout"]) {
            if t == 0 {
                player.stallTimeout = nil
            } else if t >= 2, t <= 3600 {
                player.stallTimeout = .milliseconds(Int64(t * 1000))
            } else {
                error(
                    "'player.stall_timeout' must be 0 (never) or 2 to 3600 seconds, not \(t)",
                    at: ["player", "stall_timeout"])
            }
        }
        if let v = p["mpv"] { readMPV(v, into: &player) }
        warnOfPrograms(player)
    }

    /// mpv options that start programs, which mpv's confined process may not.
    mutating func warnOfPrograms(_ player: PlayerSettings) {
        guard player.confine, let ytdl = player.mpv["ytdl"], ["yes", "true", "1"].contains(ytdl.lowercased()) else {
            return
        }
        report(
            .warning,
            "'player.mpv.ytdl' = yes: yt-dlp is a program mpv starts, which its confined process may not; "
                + "set [player] confine = false for it", at: map.valuePlace(of: ["player", "mpv", "ytdl"]))
    }

    /// `[player] remote_schemes`: network schemes a remote list may name besides the default ones.
    mutating func readRemoteSchemes(_ schemes: [String], into player: inout PlayerSettings) {
        let local = ["file", "av", "lavf", "edl", "memory", "unix", "fd", "fdclose", "null", "mf", "dvd", "bd"]
        if let bad = schemes.first(where: { s in
            local.contains(s.lowercased()) || s.isEmpty
                || !s.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" })
        }) {
            error(
                "'player.remote_schemes' names network schemes such as \"udp\", not '\(bad)' (a remote list "
                    + "never opens local files, devices or mpv's own protocols)", at: ["player", "remote_schemes"])
        } else {
            player.remoteSchemes = schemes.map { $0.lowercased() }
        }
    }

    /// `[player.mpv]`: mpv's options as they are, each a string, a number or true/false.
    mutating func readMPV(_ v: TOMLValue, into player: inout PlayerSettings) {
        guard let m = v.table else {
            error("'player.mpv' must be a table ([player.mpv])", at: ["player", "mpv"])
            return
        }
        for key in m.keys.sorted() {
            let value = m[key]!
            player.mpv[key] =
                value.string ?? value.bool.map { $0 ? "yes" : "no" } ?? value.int.map(String.init)
                ?? value.double.map { String($0) }
            if player.mpv[key] == nil {
                error("'player.mpv.\(key)' must be a string, a number or true/false", at: ["player", "mpv", key])
            }
        }
    }

    /// `[hotkeys]`: each key is an action as written anywhere (`accept_suggestion`, `"rotate-to
    /// landscape-left"`), each value one mpv key name or a list of them. The table replaces the
    /// default bindings of the actions it names and keeps the others'.
    mutating func readHotkeys(_ h: TOMLTable, onto base: [Action: [String]]) -> [Action: [String]] {
        var hotkeys = base
        for key in h.keys.sorted() {
            let path = ["hotkeys", key]
            let words = key.split(separator: " ").map(String.init)
            let action: Action
            switch Action.parse(words: words) {
            case .success(let a):
                action = a
            case .failure(.missingArgument("rotate-to", _)) where words.count == 1:
                // The old spelling of a "rotate" button.
                report(
                    .warning,
                    "'hotkeys.\(key)' without an orientation is now 'rotate' (the next orientation "
                        + "clockwise); write rotate = [...], or \"rotate-to landscape-left\" = [...] for one orientation",
                    at: map.place(of: path))
                action = .rotate
            case .failure(.unknown):
                let near = closest(key, in: Action.names.map { $0.replacingOccurrences(of: "-", with: "_") })
                report(
                    .error,
                    "unknown action '\(key)' in [hotkeys]"
                        + (near.map { "; did you mean '\($0)'?" }
                            ?? "; expected one of: \(Action.names.joined(separator: ", "))"),
                    at: map.place(of: path))
                continue
            case .failure(let e):
                report(.error, "[hotkeys] '\(key)': \(e)", at: map.place(of: path))
                continue
            }
            guard let keys = strings(h, path) else { continue }
            var ok = true
            for k in keys {
                // KEY_F11, BTN_0: read from input devices; every other name is mpv's.
                let problem = LinuxKeys.isLinuxName(k) ? LinuxKeys.problem(with: k) : KeyNames.problem(with: k)
                if let problem {
                    report(
                        .error, "'hotkeys.\(key)': \(problem)",
                        at: map.elementPlace(of: path, element: k) ?? map.valuePlace(of: path))
                    ok = false
                }
            }
            if ok { hotkeys[action] = keys }
        }
        return hotkeys
    }

    /// `[input]`: the devices read for `KEY_`/`BTN_` hotkeys, the grab, and `play` presses during a clip.
    mutating func readInput(_ t: TOMLTable, into input: inout InputSettings, presses: inout ClipPresses) {
        if let devices = strings(t, ["input", "devices"]) {
            for d in devices where d != "auto" && !d.hasPrefix("/") {
                report(
                    .error, "'input.devices': '\(d)' is neither \"auto\" nor a device path (/dev/input/…)",
                    at: map.elementPlace(of: ["input", "devices"], element: d)
                        ?? map.valuePlace(of: ["input", "devices"]))
            }
            for d in devices where d.hasPrefix("/") {
                if let problem = InputSettings.openProblem(d) {
                    report(
                        .warning,
                        "'input.devices': \(d): \(problem)"
                            + (problem.hasSuffix("appears") ? "" : "; it is tried again while Upright runs"),
                        at: map.elementPlace(of: ["input", "devices"], element: d)
                            ?? map.valuePlace(of: ["input", "devices"]))
                }
            }
            input.devices = devices
        }
        input.grab = bool(t, ["input", "grab"]) ?? input.grab
        presses = choice(t, ["input", "clip_presses"], "clip_presses") ?? presses
    }

    /// `[update]`: where the newest version is published, and how often it is asked.
    mutating func readUpdate(_ t: TOMLTable, into u: inout UpdateSettings) {
        if let source = string(t, ["update", "source"]) {
            let lower = source.lowercased()
            if source.isEmpty || (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && source.count <= 2048 {
                u.source = source
            } else {
                error(
                    "'update.source' is an http:// or https:// URL (2048 characters at most), not '\(source.prefix(80))'",
                    at: ["update", "source"])
            }
        }
        u.interval = number(t, ["update", "interval"], in: 300...604_800, "seconds") ?? u.interval
    }

    /// `[proof_of_play]`: the log, its size before rotation and the rotated files kept.
    mutating func readProofOfPlay(_ t: TOMLTable, into p: inout ProofOfPlaySettings) {
        if let path = absolutePath(t, ["proof_of_play", "file"]) { p.file = path.isEmpty ? nil : path }
        p.maxMB = number(t, ["proof_of_play", "max_mb"], in: 0.001...10000, "MB") ?? p.maxMB
        if let keep = number(t, ["proof_of_play", "keep"]) {
            if keep >= 0, keep <= 1000, keep == keep.rounded() {
                p.keep = Int(keep)
            } else {
                error(
                    "'proof_of_play.keep' must be a whole number 0 to 1000, not \(keep)", at: ["proof_of_play", "keep"])
            }
        }
    }

    /// `SECTION.listen` when it is written: `HOST:PORT`, `[V6]:PORT` or `:PORT` (loopback); empty
    /// turns the listener off. A bad one is an error at its place (`port` is its example's).
    /// `nil`: nothing to change; `.some(nil)`: off.
    mutating func listen(_ t: TOMLTable, in section: String, port: Int) -> (host: String, port: Int)?? {
        guard let text = string(t, [section, "listen"]) else { return nil }
        if text.isEmpty { return .some(nil) }
        if let address = MetricsSettings.address(text) { return address }
        error(
            "'\(section).listen' must be HOST:PORT (\"127.0.0.1:\(port)\", \"[::1]:\(port)\", \":\(port)\" for "
                + "loopback), not '\(text)'", at: [section, "listen"])
        return nil
    }

    /// `[metrics]`: the textfile, the HTTP address, the interval and whether items are labels.
    mutating func readMetrics(_ t: TOMLTable, into m: inout MetricsSettings) {
        if let path = string(t, ["metrics", "textfile"]) {
            if path.isEmpty {
                m.textfile = nil
            } else if !path.hasPrefix("/") {
                error(
                    "'metrics.textfile' must be an absolute path (node-exporter's textfile directory)",
                    at: ["metrics", "textfile"])
            } else {
                m.textfile = path
            }
        }
        if let listen = listen(t, in: "metrics", port: 9464) { m.listen = listen }
        m.interval = number(t, ["metrics", "interval"], in: 1...3600, "seconds") ?? m.interval
        m.items = bool(t, ["metrics", "items"]) ?? m.items
    }

    /// `[mqtt]`: the broker, the credentials, the topics and Home Assistant's discovery.
    mutating func readMQTT(_ t: TOMLTable, into m: inout MQTTSettings) {
        if let url = string(t, ["mqtt", "url"]) {
            if !url.isEmpty, case .failure(let e) = MQTTEndpoint.parse(url) {
                error("'mqtt.url': \(e)", at: ["mqtt", "url"])
            } else {
                m.url = url
            }
        }
        for (key, path) in [("ca_file", \MQTTSettings.caFile), ("password_file", \MQTTSettings.passwordFile)] {
            guard let file = string(t, ["mqtt", key]) else { continue }
            if !file.isEmpty, let problem = readProblem(file) {
                report(.warning, "'mqtt.\(key)': \(file): \(problem)", at: map.valuePlace(of: ["mqtt", key]))
            }
            m[keyPath: path] = file
        }
        m.username = string(t, ["mqtt", "username"]) ?? m.username
        m.password = string(t, ["mqtt", "password"]) ?? m.password
        if !m.url.isEmpty, !m.password.isEmpty || !m.passwordFile.isEmpty,
            case .failure(let e) = m.endpoint(password: "checked")
        {
            error(
                "'mqtt.\(m.password.isEmpty ? "password_file" : "password")': \(e)",
                at: ["mqtt", m.password.isEmpty ? "password_file" : "password"])
        }
        for (key, path) in [
            ("prefix", \MQTTSettings.prefix), ("device", \MQTTSettings.device),
            ("discovery_prefix", \MQTTSettings.discoveryPrefix),
        ] {
            guard let v = string(t, ["mqtt", key]) else { continue }
            if v.isEmpty || v.contains("#") || v.contains("+") || (key == "device" && v.contains("/")) {
                error(
                    "'mqtt.\(key)' must be a topic level\(key == "device" ? "" : " or levels") without # or +, not '\(v)'",
                    at: ["mqtt", key])
            } else {
                m[keyPath: path] = v
            }
        }
        m.discovery = bool(t, ["mqtt", "discovery"]) ?? m.discovery
        if let i = number(t, ["mqtt", "screenshot_interval"]) {
            if i == 0 || (10...86400).contains(i) {
                m.screenshotInterval = i
            } else {
                error(
                    "'mqtt.screenshot_interval' must be 10 to 86400 seconds, or 0 for no screenshots, not \(i)",
                    at: ["mqtt", "screenshot_interval"])
            }
        }
    }

    /// `[sync]`: the group a wall's screens share, and what they follow. The group's messages go
    /// through `[mqtt]`'s broker, so a group needs its URL.
    mutating func readSync(_ t: TOMLTable, into s: inout SyncSettings, mqtt: MQTTSettings) {
        if let group = string(t, ["sync", "group"]) {
            if group.contains("#") || group.contains("+") || group.contains("/") {
                error("'sync.group' must be a topic level without /, # or +, not '\(group)'", at: ["sync", "group"])
            } else if !group.isEmpty, mqtt.url.isEmpty {
                error(
                    "'sync.group' needs [mqtt] url: the group's screens find each other through the broker",
                    at: ["sync", "group"])
            } else {
                s.group = group
            }
        }
        if let text = string(t, ["sync", "follow"]) {
            if let follow = SyncSettings.Follow(rawValue: text) {
                s.follow = follow
            } else {
                error("'sync.follow' must be \"clock\" or \"leader\", not '\(text)'", at: ["sync", "follow"])
            }
        }
        if let file = string(t, ["sync", "key_file"]), !file.isEmpty {
            if case .failure(let problem) = SyncKey.read(file: file) {
                error("'sync.key_file': \(file) \(problem)", at: ["sync", "key_file"])
            } else {
                s.keyFile = file
            }
        }
    }

    /// `[wall]`: this screen's tile of a video wall: the grid, its place in it, the bezels, and the
    /// interface orientation the grid is given in (`[app] launch` unless it says).
    mutating func readWall(_ t: TOMLTable, into p: inout PlayerSettings, launch: InterfaceOrientation) {
        func whole(_ key: String, _ range: ClosedRange<Double>) -> Int? {
            guard let v = number(t, ["wall", key], in: range, key == "columns" || key == "rows" ? "screens" : "") else {
                return nil
            }
            guard v == v.rounded() else {
                error("'wall.\(key)' must be a whole number, not \(v)", at: ["wall", key])
                return nil
            }
            return Int(v)
        }
        let columns = whole("columns", 1...16) ?? 1
        let rows = whole("rows", 1...16) ?? 1
        var column = 0
        var row = 0
        for (key, count) in [("column", columns), ("row", rows)] {
            guard let v = number(t, ["wall", key]) else { continue }
            guard v == v.rounded(), v >= 0, Int(v) < count else {
                error(
                    "'wall.\(key)' must be 0 to \(count - 1) (from the \(key == "column" ? "left" : "top"), in a wall of \(count) \(key)s), not \(v)",
                    at: ["wall", key])
                continue
            }
            if key == "column" { column = Int(v) } else { row = Int(v) }
        }
        var bezel = (across: 0.0, down: 0.0)
        if let v = t["bezel"] {
            let shares = v.array?.compactMap { $0.double ?? $0.int.map(Double.init) }
            if let shares, shares.count == 2, v.array?.count == 2, shares.allSatisfy({ (0...0.5).contains($0) }) {
                bezel = (shares[0], shares[1])
            } else {
                error(
                    "'wall.bezel' must be two shares of a screen hidden behind the bezels, across and down, each 0 to 0.5 ([0.02, 0.0])",
                    at: ["wall", "bezel"])
            }
        }
        let hung = orientation(t, ["wall", "orientation"]) ?? launch
        p.wall = WallTile(columns: columns, rows: rows, column: column, row: row, bezel: bezel, orientation: hung)
    }

    /// `[web]`: the page's address, how a browser logs in, TLS and uploads. A listener that would
    /// serve the page without a password is an error at its line, unless `auth = "none"` on loopback.
    mutating func readWeb(_ t: TOMLTable, into w: inout WebSettings) {
        if let listen = listen(t, in: "web", port: 8080) { w.listen = listen }
        if let text = string(t, ["web", "auth"]) {
            if let auth = WebSettings.Auth(rawValue: text) {
                w.auth = auth
            } else {
                error("'web.auth' must be \"password\" or \"none\", not '\(text)'", at: ["web", "auth"])
            }
        }
        for (key, path) in [
            ("password_file", \WebSettings.passwordFile), ("certificate", \WebSettings.certificate),
            ("key", \WebSettings.key), ("uploads", \WebSettings.uploads),
        ] {
            if let file = absolutePath(t, ["web", key]) { w[keyPath: path] = file }
        }
        w.uploadMaxMB = number(t, ["web", "upload_max_mb"], in: 1...1_000_000, "megabytes") ?? w.uploadMaxMB
        if let text = string(t, ["web", "edit"]) {
            switch text {
            case "safe": w.editAll = false
            case "all": w.editAll = true
            default: error("'web.edit' must be \"safe\" or \"all\", not '\(text)'", at: ["web", "edit"])
            }
        }
        guard let listen = w.listen else { return }
        if w.certificate.isEmpty != w.key.isEmpty {
            error(
                "'web.certificate' and 'web.key' go together: TLS needs both files (or neither, for plain HTTP)",
                at: ["web", w.certificate.isEmpty ? "key" : "certificate"])
        }
        for (key, file) in [("certificate", w.certificate), ("key", w.key)] where !file.isEmpty {
            if let problem = readProblem(file) { error("'web.\(key)': \(file): \(problem)", at: ["web", key]) }
        }
        switch w.auth {
        case .none where !WebSettings.isLoopback(listen.host):
            error(
                "'web.auth = \"none\"' serves the page to anyone who reaches \(listen.host); it is allowed only on "
                    + "loopback (127.0.0.1, ::1). Set a password with `upright web-password`", at: ["web", "auth"])
        case .none:
            break
        case .password:
            if let problem = WebPassword.problem(file: w.passwordFile) {
                error(
                    "'web.listen' needs a password and \(w.passwordFile) \(problem): write one with "
                        + "`upright web-password\(t["password_file"] == nil ? "" : " --file \(w.passwordFile)")`"
                        + (WebSettings.isLoopback(listen.host) ? ", or set auth = \"none\" (loopback only)" : ""),
                    at: ["web", "listen"])
            }
        }
    }

    mutating func readCache(_ t: TOMLTable, into c: inout CacheSettings) {
        c.directory = absolutePath(t, ["cache", "directory"]) ?? c.directory
        if let file = absolutePath(t, ["cache", "ca_file"]) {
            if !file.isEmpty, let problem = readProblem(file) {
                error("'cache.ca_file': \(file): \(problem)", at: ["cache", "ca_file"])
            } else {
                c.caFile = file
            }
        }
        c.maxMB = number(t, ["cache", "max_mb"], in: 1...10_000_000, "megabytes") ?? c.maxMB
        c.refresh = number(t, ["cache", "refresh"], in: 1...604_800, "seconds") ?? c.refresh
        c.readTimeout = number(t, ["cache", "read_timeout"], in: 1...3600, "seconds") ?? c.readTimeout
    }

    /// `playlist`: files, folders and URLs, each a string or a table with its own settings
    /// (`{ path = "welcome.png", duration = 5, mute = true }`). A file or folder that is not there
    /// now may be on a stick plugged in later: a warning, not an error.
    mutating func readPlaylist(_ value: TOMLValue, into player: inout PlayerSettings) {
        let path = ["player", "playlist"]
        let elements: [TOMLValue]
        if value.string != nil {
            elements = [value]
        } else if let array = value.array {
            elements = Array(array)
        } else {
            error("'player.playlist' must be a list of files, folders and URLs, not \(value.typeName)", at: path)
            return
        }
        var items: [String] = []
        var options: [String: ItemOptions] = [:]
        for element in elements {
            var item: String
            if let s = element.string {
                item = s
            } else if let t = element.table, let s = t["path"]?.string {
                item = s
                options[item] = readItemOptions(t, item: s)
            } else {
                error(
                    "a playlist item is a string or a table with a 'path' ({ path = \"a.png\", duration = 5 })",
                    at: path)
                continue
            }
            if item.hasPrefix("~/") { item = NSHomeDirectory() + item.dropFirst() }
            items.append(item)
            if case .missing(let p, let reason) = Playlist.inspect(item) {
                report(
                    .warning, "'player.playlist': \(p): \(reason)",
                    at: map.elementPlace(of: path, element: item) ?? map.valuePlace(of: path))
            }
        }
        player.playlist = items
        player.itemOptions = options
    }

    /// How a playlist item's bytes come: `latency` (a live stream held behind), `sha256` (a
    /// download checked), `live` (streamed, never cached).
    mutating func readItemSource(_ t: TOMLTable, into o: inout ItemOptions) {
        let path = ["player", "playlist"]
        if let l = t["latency"] {
            if let v = l.double ?? l.int.map(Double.init), v >= 0.5, v <= 30 {
                o.latency = v
            } else {
                error(
                    "a playlist item's 'latency' must be 0.5 to 30 seconds behind the stream's newest picture, "
                        + "not \(l.double ?? l.int.map(Double.init) ?? .nan)",
                    at: path)
            }
        }
        if let h = t["sha256"] {
            if let text = h.string, text.count == 64, text.allSatisfy(\.isHexDigit) {
                o.sha256 = text.lowercased()
            } else {
                error("a playlist item's 'sha256' must be 64 hexadecimal digits (`sha256sum FILE`)", at: path)
            }
        }
        if let l = t["live"] {
            if let b = l.bool {
                o.live = b
            } else {
                error("a playlist item's 'live' must be true or false", at: path)
            }
        }
    }

    /// A playlist item's own settings: `{ path = …, duration = 5, mute = true, orientation = …,
    /// days = …, from = …, until = … }`.
    mutating func readItemOptions(_ t: TOMLTable, item: String) -> ItemOptions {
        let path = ["player", "playlist"]
        var o = ItemOptions()
        for key in t.keys.sorted()
        where !["path", "duration", "mute", "orientation", "days", "from", "until", "sha256", "live", "latency"]
            .contains(key)
        {
            report(
                .warning,
                "unknown key '\(key)' in a playlist item; expected path, duration, mute, orientation, days, from, "
                    + "until, sha256, live, latency",
                at: map.valuePlace(of: path))
        }
        readItemSource(t, into: &o)
        if t["days"] != nil || t["from"] != nil || t["until"] != nil {
            o.schedule = readSchedule(t, item: item)
        }
        if let shape = t["orientation"] {
            if let name = shape.string, let s = ContentShape(rawValue: name), s != .unknown, s != .square {
                o.shape = s
            } else {
                error("a playlist item's 'orientation' must be \"portrait\" or \"landscape\"", at: path)
            }
        }
        if let d = t["duration"] {
            if let v = d.double ?? d.int.map(Double.init), v > 0 {
                o.duration = v
            } else {
                error("a playlist item's 'duration' must be a number of seconds above 0", at: path)
            }
        }
        if let m = t["mute"] {
            if let b = m.bool {
                o.mute = b
            } else {
                error("a playlist item's 'mute' must be true or false", at: path)
            }
        }
        return o
    }

    /// `[screen]`: the screen is on from `on` until `off` (local time, across midnight too), on
    /// `days` (every day when absent); off, and nothing plays, the rest of the time.
    mutating func readScreen(_ t: TOMLTable, into c: inout UprightConfiguration) {
        if let v = t["cec"] {
            if let text = v.string, text == "auto" || text == "off" || text.hasPrefix("/") {
                c.screenCEC = text
                if text.hasPrefix("/"), !FileManager.default.fileExists(atPath: text) {
                    report(
                        .warning, "'screen.cec': \(text): no such device (used when it appears)",
                        at: map.valuePlace(of: ["screen", "cec"]))
                }
            } else {
                error(
                    "'screen.cec' must be \"auto\", \"off\" or an adapter's path (\"/dev/cec0\")",
                    at: ["screen", "cec"])
            }
        }
        // Seconds without a person (`presence`) before the screen sleeps; 0: never.
        if let off = number(t, ["screen", "idle_off"], in: 0...604_800, "seconds") {
            c.screenIdleOff = off > 0 ? off : nil
        }
        // How long a toast's words stay on screen.
        if let seconds = number(t, ["screen", "toast_seconds"], in: 1...86_400, "seconds") {
            c.screenToastSeconds = seconds
        }
        var plan = Schedule()
        for (key, keyPath) in [("on", \Schedule.from), ("off", \Schedule.until)] {
            guard let v = t[key] else { continue }
            guard let text = v.string, let m = Schedule.minutes(text) else {
                error("'screen.\(key)' must be a time HH:MM (\"07:00\", \"22:30\")", at: ["screen", key])
                return
            }
            plan[keyPath: keyPath] = m
        }
        guard let on = plan.from, let off = plan.until else {
            if plan.from != nil || plan.until != nil {
                error("[screen] needs both 'on' and 'off'", at: ["screen"])
            }
            return
        }
        guard on % 1440 != off % 1440 else {
            error("[screen] 'on' and 'off' are the same time: an empty window", at: ["screen", "off"])
            return
        }
        if let d = t["days"] {
            let names = d.array?.compactMap(\.string) ?? d.string.map { [$0] } ?? []
            for name in names {
                guard name.count >= 3, let i = Schedule.dayNames.firstIndex(of: String(name.prefix(3)).lowercased())
                else {
                    report(
                        .error,
                        "unknown day '\(name)' in 'screen.days'; expected: "
                            + Schedule.dayNames.joined(separator: ", "),
                        at: map.elementPlace(of: ["screen", "days"], element: name)
                            ?? map.valuePlace(of: ["screen", "days"]))
                    return
                }
                plan.days.insert(i + 1)
            }
        }
        c.screenPlan = plan
    }

    /// A playlist item's schedule: `days = ["mon", "fri"]`, `from = "22:00"`, `until = "06:00"`
    /// (a window across midnight belongs to the day it starts on).
    mutating func readSchedule(_ t: TOMLTable, item: String) -> Schedule? {
        let path = ["player", "playlist"]
        var schedule = Schedule()
        var ok = true
        if let d = t["days"] {
            let names = d.array?.compactMap(\.string) ?? d.string.map { [$0] } ?? []
            for name in names {
                if let i = Schedule.dayNames.firstIndex(of: String(name.prefix(3)).lowercased()), name.count >= 3 {
                    schedule.days.insert(i + 1)
                } else {
                    report(
                        .error,
                        "unknown day '\(name)' in the schedule of \(item); expected: "
                            + Schedule.dayNames.joined(separator: ", "),
                        at: map.elementPlace(of: path, element: name) ?? map.valuePlace(of: path))
                    ok = false
                }
            }
        }
        for (key, keyPath) in [("from", \Schedule.from), ("until", \Schedule.until)] {
            guard let v = t[key] else { continue }
            guard let text = v.string, let m = Schedule.minutes(text) else {
                report(
                    .error, "'\(key)' in the schedule of \(item) must be a time HH:MM (\"07:30\", \"22:00\")",
                    at: map.valuePlace(of: path))
                ok = false
                continue
            }
            schedule[keyPath: keyPath] = m
        }
        if (schedule.from == nil) != (schedule.until == nil) {
            report(.error, "the schedule of \(item) needs both 'from' and 'until'", at: map.valuePlace(of: path))
            ok = false
        } else if let f = schedule.from, let u = schedule.until, f % 1440 == u % 1440 {
            report(
                .error,
                "the schedule of \(item) has an empty window (from \(Schedule.text(f)) until the same time)",
                at: map.valuePlace(of: path))
            ok = false
        }
        return ok ? schedule : nil
    }

    mutating func readClassifier(_ k: TOMLTable, into parameters: inout OrientationClassifier.Parameters) {
        var p = parameters
        for field in OrientationClassifier.Parameters.fields {
            if let v = number(k, ["classifier", field.name]) { p[keyPath: field.keyPath] = v }
        }
        for problem in p.problems {
            let key = String(problem.prefix { $0 != " " }).replacingOccurrences(of: "-", with: "_")
            error(problem, at: ["classifier", key])
        }
        parameters = p
    }

    /// The merged configuration's own checks (the policy's, and hotkeys that name no clip scene),
    /// each with the key it is about and, for a scene, its name.
    static func checks(_ c: UprightConfiguration) -> [(message: String, path: [String], scene: String?)] {
        var out: [(String, [String], String?)] = []
        for (action, _) in c.player.hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            guard case .play(let name) = action, c.policy.scenes[name]?.clip == nil else { continue }
            let clips = c.policy.scenes.values.filter { $0.clip != nil }.map(\.name).sorted()
            out.append(
                (
                    "[hotkeys] 'play \(name)': no clip scene named '\(name)'; "
                        + (clips.isEmpty
                            ? "give one a file: [scenes.\(name)] clip = \"FILE\""
                            : "the clip scenes are: \(clips.joined(separator: ", "))"),
                    ["hotkeys", action.words.joined(separator: " ")], nil
                ))
        }
        for problem in c.policy.problems {
            let path: [String] =
                switch problem {
                case .emptyAppDisplayMask: ["app", "supported"]
                case .launchOutsideMask: ["app", "launch"]
                case .emptyIntersection(let scene, _, _, _): ["scenes", scene, "supported"]
                case .preferredOutsideMask(let scene, _, _): ["scenes", scene, "preferred"]
                case .unknownScene, .badTransitionDuration: ["app"]
                }
            out.append((problem.description, path, problem.scene))
        }
        return out
    }
}

/// The known name closest to `word` (edit distance at most 3, or a shared prefix), if any.
func closest(_ word: String, in candidates: [String]) -> String? {
    let w = word.lowercased()
    let best = candidates.map { ($0, editDistance(w, $0)) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, min(3, word.count / 3)) else { return nil }
    return best.0
}
