import OrientationCore
import TOMLKit

/// Walks the TOML tables, converts and checks each value, and keeps a diagnostic with its place
/// for everything wrong.
struct ConfigReader {
    let file: String
    let map: SourceMap
    var diagnostics: [Diagnostic] = []

    static let sections: [String: [String]] = [
        "app": ["supported", "launch"],
        "transition": ["duration"],
        "sensor": ["uri", "device", "rate_hz", "mount_matrix"],
        "lock": ["locked", "evdev"],
        "display": ["backend", "output", "natural", "supported", "mode", "touch", "kiosk"],
        "scenes": [],
        "player": ["playlist", "loop", "mpv"],
        "hotkeys": ["fullscreen", "lock", "rotate_to", "next", "previous"],
        "classifier": classifierKeys,
    ]
    static let sceneKeys = ["supported", "autorotate", "preferred", "strategy", "force_when_locked"]
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
        _ table: TOMLTable, _ path: [String], expected: String, _ convert: (any TOMLValueConvertible) -> T?
    ) -> T? {
        guard let v = table[path.last!] else { return nil }
        guard let converted = convert(v) else {
            error("'\(path.joined(separator: "."))' must be \(expected), not \(v.type)", at: path)
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
            error("'\(path.joined(separator: "."))' must be a list of orientations, not \(v.type)", at: path)
            return nil
        }
        var mask = OrientationMask()
        var ok = true
        for element in array {
            guard let name = element.string else {
                error("'\(path.joined(separator: "."))' must list orientation names, not \(element.type)", at: path)
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
        error("'\(path.joined(separator: "."))' must be a string or a list of strings, not \(v.type)", at: path)
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

    mutating func read(_ root: TOMLTable) -> UprightConfiguration {
        var c = UprightConfiguration()
        unknownKeys(in: root, path: [], known: Array(Self.sections.keys))
        func section(_ name: String) -> TOMLTable? {
            guard let v = root[name] else { return nil }
            guard let t = v.table else {
                error("'\(name)' must be a table ([\(name)]), not \(v.type)", at: [name])
                return nil
            }
            if name != "scenes" { unknownKeys(in: t, path: [name], known: Self.sections[name] ?? []) }
            return t
        }
        var scenes = Dictionary(uniqueKeysWithValues: PolicyConfiguration.standardScenes.map { ($0.name, $0) })
        var appSupported = c.policy.appSupported, launch = c.policy.launch
        var displaySupported = c.policy.displaySupported, duration = c.policy.transitionDuration
        if let app = section("app") {
            appSupported = mask(app, ["app", "supported"]) ?? appSupported
            launch = orientation(app, ["app", "launch"]) ?? launch
        }
        if let t = section("transition"), let d = number(t, ["transition", "duration"]) {
            if d >= 0 {
                duration = d
            } else {
                error("'transition.duration' must be 0 or more seconds, not \(d)", at: ["transition", "duration"])
            }
        }
        if let s = section("sensor") {
            c.sensor.uri = string(s, ["sensor", "uri"]) ?? c.sensor.uri
            c.sensor.device = string(s, ["sensor", "device"]) ?? c.sensor.device
            if let r = number(s, ["sensor", "rate_hz"]) {
                if r > 0 && r <= 1000 {
                    c.sensor.rateHz = r
                } else {
                    error("'sensor.rate_hz' must be above 0 and at most 1000, not \(r)", at: ["sensor", "rate_hz"])
                }
            }
            c.sensor.mountMatrix = string(s, ["sensor", "mount_matrix"]) ?? c.sensor.mountMatrix
            let uri = c.sensor.uri
            if !(uri == "local:" || uri.hasPrefix("ip:") || uri.hasPrefix("usb:") || uri.hasPrefix("serial:")
                || uri.hasPrefix("xml:") || uri.hasPrefix("replay:") || uri == "none")
            {
                error(
                    "bad sensor URI '\(uri)'; expected local:, ip:HOST[:PORT], usb:, serial:, xml:FILE, replay:FILE.csv or none",
                    at: ["sensor", "uri"])
            }
        }
        if let l = section("lock") {
            c.lock.locked = bool(l, ["lock", "locked"]) ?? c.lock.locked
            c.lock.evdev = string(l, ["lock", "evdev"]) ?? c.lock.evdev
        }
        if let d = section("display") {
            if let b = string(d, ["display", "backend"]) {
                if UprightConfiguration.backends.contains(b) {
                    c.display.backend = b
                } else {
                    error(
                        "unknown display backend '\(b)'; expected one of: "
                            + UprightConfiguration.backends.joined(separator: ", "), at: ["display", "backend"])
                }
            }
            c.display.output = string(d, ["display", "output"]) ?? c.display.output
            c.display.natural = orientation(d, ["display", "natural"]) ?? c.display.natural
            displaySupported = mask(d, ["display", "supported"]) ?? displaySupported
            if let m = string(d, ["display", "mode"]) {
                let parts = m.split(separator: "x")
                if m == "auto" || (parts.count == 2 && parts.allSatisfy { Int($0).map { $0 > 0 } ?? false }) {
                    c.display.mode = m
                } else {
                    error(
                        "bad display mode '\(m)'; expected \"auto\" or WIDTHxHEIGHT, such as \"800x1280\"",
                        at: ["display", "mode"])
                }
            }
            c.display.touch = strings(d, ["display", "touch"]) ?? c.display.touch
            c.display.kiosk = bool(d, ["display", "kiosk"]) ?? c.display.kiosk
        }
        if let s = section("scenes") {
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
                if let st = string(t, path + ["strategy"]) {
                    if let strategy = RotationStrategy(rawValue: st) {
                        scene.strategy = strategy
                    } else {
                        error(
                            "unknown strategy '\(st)'; expected one of: "
                                + RotationStrategy.allNames.joined(separator: ", "), at: path + ["strategy"])
                    }
                }
                scenes[name] = scene
            }
        }
        if let p = section("player") {
            c.player.playlist = strings(p, ["player", "playlist"]) ?? c.player.playlist
            c.player.loop = bool(p, ["player", "loop"]) ?? c.player.loop
            if let v = p["mpv"] {
                if let m = v.table {
                    for key in m.keys.sorted() {
                        let value = m[key]!
                        c.player.mpv[key] =
                            value.string ?? value.bool.map { $0 ? "yes" : "no" }
                            ?? value.int.map(String.init) ?? value.double.map { String($0) }
                        if c.player.mpv[key] == nil {
                            error(
                                "'player.mpv.\(key)' must be a string, a number or true/false",
                                at: ["player", "mpv", key])
                        }
                    }
                } else {
                    error("'player.mpv' must be a table ([player.mpv])", at: ["player", "mpv"])
                }
            }
        }
        if let h = section("hotkeys") {
            for key in h.keys.sorted() where Self.sections["hotkeys"]!.contains(key) {
                c.hotkeys[key] = strings(h, ["hotkeys", key]) ?? c.hotkeys[key]
            }
        }
        if let k = section("classifier") {
            var p = c.classifier
            for field in OrientationClassifier.Parameters.fields {
                if let v = number(k, ["classifier", field.name]) { p[keyPath: field.keyPath] = v }
            }
            for problem in p.problems {
                let key = String(problem.prefix { $0 != " " }).replacingOccurrences(of: "-", with: "_")
                error(problem, at: ["classifier", key])
            }
            c.classifier = p
        }
        c.policy = PolicyConfiguration(
            appSupported: appSupported, launch: launch, displaySupported: displaySupported,
            scenes: Array(scenes.values), transitionDuration: duration)
        return c
    }

    /// The policy's own checks, placed at the keys they are about.
    mutating func validate(_ c: inout UprightConfiguration) {
        guard diagnostics.allSatisfy({ $0.severity != .error }) else { return }
        for problem in c.policy.problems {
            var message = problem.description
            var path: [String] =
                switch problem {
                case .emptyAppDisplayMask: ["app", "supported"]
                case .launchOutsideMask: ["app", "launch"]
                case .emptyIntersection(let scene, _, _, _): ["scenes", scene, "supported"]
                case .preferredOutsideMask(let scene, _, _): ["scenes", scene, "preferred"]
                case .unknownScene, .badTransitionDuration: ["app"]
                }
            if let scene = problem.scene, map.place(of: ["scenes", scene]) == nil {
                // A built-in scene the file does not mention: point at what made it invalid.
                path = ["app", "supported"]
                message += " (a built-in scene: give [scenes.\(scene)] a supported list the app and display allow)"
            }
            report(.error, message, at: map.place(of: path))
        }
    }
}

/// The known name closest to `word` (edit distance at most 3, or a shared prefix), if any.
func closest(_ word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
    let w = Array(word.lowercased())
    let best = candidates.map { ($0, distance(w, Array($0))) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, min(3, word.count / 3)) else { return nil }
    return best.0
}
