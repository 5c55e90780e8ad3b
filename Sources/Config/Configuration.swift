public import Diagnostics
import Files
import Foundation
public import Input
public import OrientationCore
public import Playback
public import Settings
import TOML

/// Upright's configuration: every setting, validated, with defaults for what the file leaves out.
public struct UprightConfiguration: Sendable {
    public var policy = PolicyConfiguration()
    public var classifier = OrientationClassifier.Parameters()
    public var sensor = SensorSettings()
    public var lock = LockSettings()
    public var display = DisplaySettings()
    /// What plays, mpv's options and the hotkeys.
    public var player = PlayerSettings()
    /// The input devices read for `KEY_`/`BTN_` hotkeys.
    public var input = InputSettings()
    /// Prometheus metrics: a node-exporter textfile, an HTTP endpoint.
    public var metrics = MetricsSettings()
    /// MQTT, with Home Assistant discovery: off without a broker URL.
    public var mqtt = MQTTSettings()
    /// A video wall's sync group (`[sync]`): off without a group.
    public var sync = SyncSettings()
    /// The proof-of-play log (`[proof_of_play]`): off without a file.
    public var proofOfPlay = ProofOfPlaySettings()
    /// Where the newest version is published (`[update]`): off without a source.
    public var update = UpdateSettings()
    /// The operator's page (`[web]`): off unless `listen` is set.
    public var web = WebSettings()
    /// Remote playlist items (`[cache]`): where they are kept, how much, how often asked again.
    public var cache = CacheSettings()
    /// The screen's power plan (`[screen]`): the window it is on; `nil`: always on.
    public var screenPlan: Schedule?
    /// HDMI-CEC with the power plan (`screen.cec`): `auto` (the first `/dev/cecN` present, if any),
    /// `off`, or an adapter's path.
    public var screenCEC = "auto"
    /// `[screen] idle_off`: seconds without a person before the screen sleeps (`nil`: never).
    public var screenIdleOff: Double?
    /// `[screen] toast_seconds`: how long a toast's words stay on screen.
    public var screenToastSeconds = defaultToastSeconds
    public static let defaultToastSeconds = 10.0
    /// Warnings found while reading (unknown keys, with the closest known one).
    public var warnings: [Diagnostic] = []
    /// The file it came from; `nil` for the built-in defaults.
    public var file: String?
    /// The drop-ins merged after ``file``, in order.
    public var dropIns: [String] = []
    /// Which file set each key (`sensor.uri` → its path); keys no file sets are the defaults.
    public var origins: [String: String] = [:]

    /// Where it came from, in words: the file and its drop-ins, or the built-in defaults.
    public var source: String {
        let base = file ?? "the built-in defaults"
        guard !dropIns.isEmpty else { return base }
        return base + " with " + (dropIns.count == 1 ? "the drop-in " : "the drop-ins ")
            + dropIns.joined(separator: ", ")
    }

    public init() {}

    /// What the input hub reads: the `KEY_`/`BTN_` names of `[hotkeys]`, on `[input] devices`,
    /// and the rotation-lock switch of `[lock] evdev`.
    public var inputPlan: InputPlan {
        let keys = player.hotkeys.values.joined().compactMap {
            LinuxKeys.isLinuxName($0) ? LinuxKeys.code(of: $0) : nil
        }
        return InputPlan(
            devices: input.devices, keys: Set(keys), grab: input.grab, lockSwitch: lock.evdev,
            tabletMode: sensor.tabletMode == .auto || policy.scenes.values.contains { $0.followsTabletMode == true })
    }

    /// The action each bound input-device key asks for.
    public var inputActions: [UInt16: Action] {
        var out: [UInt16: Action] = [:]
        for (action, keys) in player.hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            for k in keys where LinuxKeys.isLinuxName(k) {
                if let code = LinuxKeys.code(of: k), out[code] == nil { out[code] = action }
            }
        }
        return out
    }

    /// Reads and validates a configuration file and its drop-ins (``dropIns(of:)``), merged in
    /// that order.
    ///
    /// - Throws: ``ConfigurationError`` with every error (and the warnings) found, each with its
    ///   file:line:column in the file it is in, or a single one for a file that cannot be read.
    public static func load(path: String) throws(ConfigurationError) -> UprightConfiguration {
        try load(files: [path] + dropIns(of: path))
    }

    /// The drop-ins of the configuration file `path`: `PATH.d/*.toml`, in name order
    /// (`/etc/upright/upright.toml.d/10-fleet.toml`), each owned by one tool (Ansible, balena).
    public static func dropIns(of path: String) -> [String] {
        let directory = path + ".d"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }

    /// Reads the files in order, each over the ones before it; the first is the main file.
    public static func load(files: [String]) throws(ConfigurationError) -> UprightConfiguration {
        var layers: [(text: String, file: String)] = []
        for path in files {
            do {
                if let problem = readProblem(path) { throw ReadFailure(reason: problem) }
                layers.append((try String(contentsOfFile: path, encoding: .utf8), path))
            } catch {
                let reason = (error as? ReadFailure)?.reason ?? "not UTF-8 text"
                throw ConfigurationError(diagnostics: [
                    Diagnostic(
                        file: path, line: nil, column: nil, severity: .error,
                        message: "cannot read the configuration file: \(reason)")
                ])
            }
        }
        return try parse(layers: layers)
    }

    /// Parses and validates configuration text; `file` names it in diagnostics.
    public static func parse(_ text: String, file: String = "<config>") throws(ConfigurationError)
        -> UprightConfiguration
    {
        try parse(layers: [(text, file)])
    }

    /// Parses texts in order, each over the ones before; validates what they make together.
    public static func parse(layers: [(text: String, file: String)]) throws(ConfigurationError)
        -> UprightConfiguration
    {
        var config = UprightConfiguration()
        var readers: [ConfigReader] = []
        var diagnostics: [Diagnostic] = []
        for (text, file) in layers {
            let table: TOMLTable
            do {
                table = try TOMLTable(parsing: text)
            } catch {
                diagnostics.append(
                    Diagnostic(
                        file: file, line: error.line, column: error.column, severity: .error,
                        message: "invalid TOML: \(error.reason)"))
                continue
            }
            var reader = ConfigReader(file: file, map: SourceMap(text))
            config = reader.read(table, onto: config)
            for key in Self.keys(of: table) { config.origins[key] = file }
            readers.append(reader)
        }
        config.file = layers.first?.file
        config.dropIns = layers.dropFirst().map(\.file)
        if diagnostics.isEmpty, readers.allSatisfy({ $0.diagnostics.allSatisfy { $0.severity != .error } }) {
            // Each at the key it is about, in the last file that sets it (else the main file).
            for check in ConfigReader.checks(config) where !readers.isEmpty {
                var (message, path) = (check.message, check.path)
                if let scene = check.scene, readers.allSatisfy({ $0.map.place(of: ["scenes", scene]) == nil }) {
                    // A built-in scene no file mentions: point at what made it invalid.
                    path = ["app", "supported"]
                    message += " (a built-in scene: give [scenes.\(scene)] a supported list the app and display allow)"
                }
                let i = readers.lastIndex { $0.map.place(of: path) != nil } ?? 0
                readers[i].report(.error, message, at: readers[i].map.place(of: path))
            }
        }
        // File by file, each in the order of its lines, as a compiler lists them.
        for reader in readers {
            diagnostics += reader.diagnostics.enumerated().sorted {
                ($0.element.line ?? 0, $0.element.column ?? 0, $0.offset) < (
                    $1.element.line ?? 0, $1.element.column ?? 0, $1.offset
                )
            }.map(\.element)
        }
        guard diagnostics.allSatisfy({ $0.severity != .error }) else {
            throw ConfigurationError(diagnostics: diagnostics)
        }
        config.warnings = diagnostics
        return config
    }

    /// Every key a table sets, as dotted paths (`sensor.uri`, `scenes.menu.supported`,
    /// `player.mpv.vo`); a list is one value.
    static func keys(of table: TOMLTable, prefix: String = "") -> [String] {
        table.keys.flatMap { key -> [String] in
            let path = prefix.isEmpty ? key : prefix + "." + key
            if let inner = table[key]?.table { return keys(of: inner, prefix: path) }
            return [path]
        }
    }
}

/// The `[metrics]` settings: Prometheus's text format, written for node-exporter's textfile
/// collector and/or served over HTTP. Both are off by default.
public struct MetricsSettings: Sendable, Hashable {
    /// The `.prom` file to write (atomically) for node-exporter's textfile collector.
    public var textfile: String?
    /// Where `/metrics` is served: a host and port; a bare `:PORT` is loopback.
    public var listen: (host: String, port: Int)? {
        get { listenAddress.map { ($0.host, $0.port) } }
        set { listenAddress = newValue.map { Address(host: $0.host, port: $0.port) } }
    }
    private var listenAddress: Address?
    /// Seconds between two writes of the textfile.
    public var interval: Double = 5
    /// The playing item's path as a label (`upright_playing_info{item=…}`); off, no path or title
    /// leaves the player.
    public var items = false

    struct Address: Sendable, Hashable {
        var host: String
        var port: Int
    }

    public init() {}

    /// Parses `HOST:PORT`, `[V6]:PORT` or `:PORT` (loopback).
    public static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    public static func == (a: MetricsSettings, b: MetricsSettings) -> Bool {
        a.textfile == b.textfile && a.listenAddress == b.listenAddress && a.interval == b.interval && a.items == b.items
    }
    public func hash(into h: inout Hasher) {
        h.combine(textfile)
        h.combine(listenAddress)
        h.combine(interval)
        h.combine(items)
    }
}

/// The `[proof_of_play]` settings: what played, one JSON line per item, in a file that is rotated
/// by size.
public struct ProofOfPlaySettings: Sendable, Hashable {
    /// The log (an absolute path); `nil`: no log.
    public var file: String?
    /// Megabytes the file may reach before it becomes `FILE.1` (the older ones `FILE.2` …).
    public var maxMB = 10.0
    /// Rotated files kept beside the current one.
    public var keep = 5

    public init() {}
}

/// The `[update]` settings: an `http(s)` URL whose first line is the newest version of Upright the
/// fleet publishes (for Home Assistant's `update` entity and `ctl status`), asked every `interval`.
public struct UpdateSettings: Sendable, Hashable {
    /// The URL; empty: the installed version alone is said.
    public var source = ""
    /// Seconds between two questions.
    public var interval = 21_600.0

    public init() {}
}

/// The `[web]` settings: the operator's page (and `/metrics` beside it), off by default.
public struct WebSettings: Sendable, Hashable {
    /// How a browser proves it is the operator's.
    public enum Auth: String, Sendable, Hashable, CaseIterable {
        /// The password whose bcrypt hash `password_file` holds (`upright web-password` writes it).
        case password
        /// No password: allowed only on a loopback address (a reverse proxy in front does the rest).
        case none
    }

    /// Where the page is served; `nil`: no page.
    public var listen: (host: String, port: Int)? {
        get { listenAddress.map { ($0.host, $0.port) } }
        set { listenAddress = newValue.map { MetricsSettings.Address(host: $0.host, port: $0.port) } }
    }
    private var listenAddress: MetricsSettings.Address?
    public var auth = Auth.password
    /// The file whose first line is the password's bcrypt hash.
    public var passwordFile = "/etc/upright/web-password"
    /// TLS: a PEM certificate chain and its key; both or neither.
    public var certificate = ""
    public var key = ""
    /// The folder uploads go to (absolute); empty: the playlist's first folder.
    public var uploads = ""
    /// The largest upload, in megabytes.
    public var uploadMaxMB = 2048.0
    /// The page's editor may change every key (`edit = "all"`); by default (`"safe"`) not those
    /// that run programs, name paths, devices or listeners, or widen what plays (``PageEdit``).
    public var editAll = false

    public init() {}

    /// Whether `host` is a loopback address: an IPv4 literal in `127.0.0.0/8` (four decimal
    /// numbers, each 0…255), `::1` (in any of its spellings, bracketed or not), or the name
    /// `localhost` (`localhost.` too). A name that only starts like one (`127.attacker.example`)
    /// is not.
    public static func isLoopback(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h == "localhost" || h == "localhost." { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts.allSatisfy({ Int($0).map { $0 <= 255 } ?? false })
        {
            return parts[0] == "127"
        }
        return isIPv6Loopback(h)
    }

    /// `::1` however written: eight groups, `::` standing for the zeros between.
    static func isIPv6Loopback(_ h: String) -> Bool {
        guard h.contains(":"), h.allSatisfy({ $0 == ":" || $0.isHexDigit }) else { return false }
        let halves = h.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        let groups = halves.map { $0.isEmpty ? [] : $0.split(separator: ":", omittingEmptySubsequences: false) }
        let count = groups.reduce(0) { $0 + $1.count }
        guard groups.allSatisfy({ $0.allSatisfy { !$0.isEmpty && $0.count <= 4 } }),
            halves.count == 2 ? count < 8 : count == 8
        else { return false }
        let values = groups.flatMap { $0 }.map { Int($0, radix: 16) ?? -1 }
        return values.last == 1 && values.dropLast().allSatisfy { $0 == 0 }
            && (halves.count == 2 ? halves[1].isEmpty == false : true)
    }
}

/// The `[cache]` settings: `http://` and `https://` playlist items are downloaded into a directory
/// and played from there, asked again every `refresh` seconds (a new version plays from the next
/// item change), and kept when the network or the server is gone.
public struct CacheSettings: Sendable, Hashable {
    /// The directory (absolute); empty: systemd's `CacheDirectory=` (`$CACHE_DIRECTORY`), else
    /// `$XDG_CACHE_HOME/upright`, else `~/.cache/upright`.
    public var directory = ""
    /// What the cached files may take together, in megabytes; the least recently played go first.
    public var maxMB = 2000.0
    /// Seconds between two questions to the server (conditional: ETag, Last-Modified).
    public var refresh = 300.0
    /// A PEM file of CA certificates trusted besides the system's, for `https://` servers.
    public var caFile = ""
    /// Seconds a download may go without a byte before it fails (and is asked again with back-off).
    public var readTimeout = 30.0

    public init() {}

    /// The directory the cache uses, from the environment when none is set.
    public func resolvedDirectory(environment: [String: String]? = nil) -> String {
        let environment = environment ?? ProcessInfo.processInfo.environment
        if !directory.isEmpty { return directory }
        if let d = environment["CACHE_DIRECTORY"]?.split(separator: ":").first { return String(d) }
        if let x = environment["XDG_CACHE_HOME"], x.hasPrefix("/") { return x + "/upright" }
        return NSHomeDirectory() + "/.cache/upright"
    }
}

/// The host's name as the system has it (`gethostname`).
public var machineName: String {
    var buffer = [CChar](repeating: 0, count: 256)
    gethostname(&buffer, 255)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The `[mqtt]` settings.
public struct MQTTSettings: Sendable, Hashable {
    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; empty: no MQTT.
    public var url = ""
    /// The CA certificates for `mqtts://` (the system's when empty).
    public var caFile = ""
    public var username = ""
    public var password = ""
    /// A file whose first line is the password (kept out of the configuration).
    public var passwordFile = ""
    /// Topics are `PREFIX/DEVICE/...`.
    public var prefix = "upright"
    /// This screen's name in topics and in Home Assistant (the host's name by default).
    public var device = MQTTSettings.hostName
    /// Home Assistant discovery messages (retained) under `discoveryPrefix`.
    public var discovery = true
    public var discoveryPrefix = "homeassistant"
    /// Seconds between the screen's screenshots on `PREFIX/DEVICE/screenshot` (a PNG, retained: Home
    /// Assistant's image entity); 0: none.
    public var screenshotInterval = 60.0

    public init() {}

    /// The host's name, as a topic level (letters, digits, `-` and `_`).
    public static var hostName: String {
        let name = machineName
        let cleaned = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return cleaned.isEmpty ? "upright" : cleaned
    }

    /// The password: the first line of `password_file`, else `password`; `nil` for none.
    public func readPassword() -> String? {
        if !passwordFile.isEmpty, let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) {
            return text.split(separator: "\n").first.map(String.init)
        }
        return password.isEmpty ? nil : password
    }

    /// Where and how to reach the broker: the URL's host, port and credentials, with the
    /// CA file, the user name and the password (`password`: the file's first line, else the
    /// key's) over them. A password needs a user name: libmosquitto sends none without one.
    public func endpoint(password: String?) -> Result<MQTTEndpoint, MQTTError> {
        guard case .success(var endpoint) = MQTTEndpoint.parse(url) else { return MQTTEndpoint.parse(url) }
        if !caFile.isEmpty { endpoint.caFile = caFile }
        if !username.isEmpty { endpoint.username = username }
        if let password { endpoint.password = password }
        guard endpoint.password == nil || endpoint.username != nil else {
            return .failure(MQTTError("a password needs a user name: [mqtt] username, or user@ in the URL"))
        }
        return .success(endpoint)
    }
}

/// The `[sync]` settings: the screens of a wall play in step through `[mqtt]`'s broker.
public struct SyncSettings: Sendable, Hashable {
    /// What a node follows.
    public enum Follow: String, Sendable, Hashable, CaseIterable {
        /// The same playlist on every node, the item and position from the group's clock.
        case clock
        /// One node leads (the least device name heard): the round of the playlist starts when it
        /// says, and a step on it (`next`, `previous`) moves every screen.
        case leader
    }
    /// Nodes with the same group play in step; empty: this screen plays on its own.
    public var group = ""
    public var follow = Follow.clock
    /// The group's shared secret (raw bytes, 32 or more, mode 0600): every message of the group
    /// is sealed with it, and only sealed ones count. Empty: messages go unsealed, on a broker
    /// the operator trusts.
    public var keyFile = ""

    public init() {}
}

/// The group key in `[sync] key_file`: raw bytes (`head -c 32 /dev/urandom > FILE`), 32 to 4096
/// of them, in a file only its owner may read or write.
public enum SyncKey {
    public static let minimum = 32
    public static let maximum = 4096

    /// The key in `file`, or why it gives none, worded to follow the file's name.
    public static func read(file: String) -> Result<[UInt8], SyncKeyProblem> {
        if let problem = readProblem(file) {
            return .failure(
                SyncKeyProblem(problem == systemError(ENOENT) ? "does not exist" : "cannot be read: \(problem)"))
        }
        var info = stat()
        guard stat(file, &info) == 0 else { return .failure(SyncKeyProblem("cannot be read: \(systemError(errno))")) }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return .failure(
                SyncKeyProblem("may be read or written by other users (mode 0\(mode)): `chmod 600 \(file)`"))
        }
        guard info.st_size <= maximum, let data = FileManager.default.contents(atPath: file) else {
            return .failure(SyncKeyProblem("is over \(maximum) bytes: a group key is 32 random bytes or more"))
        }
        guard data.count >= minimum else {
            return .failure(
                SyncKeyProblem(
                    "holds \(data.count) bytes; a group key needs \(minimum) or more: `head -c 32 /dev/urandom > \(file)`"
                ))
        }
        return .success(Array(data))
    }
}

/// Why a group key file gives no key.
public struct SyncKeyProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}

/// Why a file could not be read.
private struct ReadFailure: Error {
    var reason: String
}

extension UprightConfiguration {
    /// Where the page's uploads go: `[web] uploads`, else the playlist's first folder.
    public var uploadFolder: String? {
        if !web.uploads.isEmpty { return web.uploads }
        return player.playlist.first { entry in
            var isDirectory: ObjCBool = false
            return !entry.contains("://") && FileManager.default.fileExists(atPath: entry, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
    }
}

/// The page's password file: its first line is a bcrypt hash (`$2b$12$…`, as `upright
/// web-password` writes it, or `htpasswd -nbB`'s part after the colon).
public enum WebPassword {
    /// The hash in `file`, or why there is none, worded to follow the file's name.
    public static func hash(file: String) -> Result<String, WebPasswordProblem> {
        if let problem = readProblem(file) {
            return .failure(
                WebPasswordProblem(problem == systemError(ENOENT) ? "does not exist" : "cannot be read: \(problem)"))
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(WebPasswordProblem("cannot be read"))
        }
        let first =
            String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let hash = first.split(separator: ":").last.map(String.init) ?? first  // htpasswd's user:hash
        guard hash.count == 60, ["$2a$", "$2b$", "$2y$"].contains(String(hash.prefix(4))) else {
            return .failure(WebPasswordProblem("holds no bcrypt hash (a line starting with $2b$)"))
        }
        return .success(hash)
    }

    /// Why `file` gives no hash; `nil` when it does.
    public static func problem(file: String) -> String? {
        if case .failure(let p) = hash(file: file) { return p.description }
        return nil
    }
}

/// Why a password file gives no hash.
public struct WebPasswordProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}
