public import Diagnostics
public import Foundation
import OrientationCore
import Settings

extension UprightConfiguration {
    /// Where a configuration is looked for, in order: `$XDG_CONFIG_HOME/upright/upright.toml`
    /// (`~/.config` when unset), then `/etc/upright/upright.toml`.
    public static func searchPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return [xdg + "/upright/upright.toml", "/etc/upright/upright.toml"]
    }

    /// The configuration `--config` names, else the first file of ``searchPath(environment:)`` that
    /// exists, else the built-in defaults.
    public static func locate(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError) -> UprightConfiguration
    {
        if let explicit { return try load(path: explicit) }
        let paths = searchPath(environment: environment)
        for path in paths where FileManager.default.fileExists(atPath: path) {
            return try load(path: path)
        }
        // No main file: the system's drop-ins still apply, over the defaults.
        let dropIns = dropIns(of: paths.last!)
        guard !dropIns.isEmpty else { return UprightConfiguration() }
        var c = try load(files: dropIns)
        c.file = nil
        c.dropIns = dropIns
        return c
    }

    /// The effective configuration as TOML, each setting followed by the file it came from
    /// (`# default` for the built-in ones): `upright check-config --origin`.
    public var tomlWithOrigins: String {
        var section = ""
        return toml.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                return String(line)
            }
            guard !line.hasPrefix("#"), let eq = line.range(of: " = ") else { return String(line) }
            var key = String(line[..<eq.lowerBound])
            if key.hasPrefix("\"") { key = String(key.dropFirst().dropLast()) }
            let path = section.isEmpty ? key : section + "." + key
            return line + "  # " + (origins[path] ?? "default")
        }.joined(separator: "\n")
    }

    /// The effective configuration as TOML: every setting, defaults included.
    public var toml: String {
        func q(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func list(_ m: OrientationMask) -> String { "[" + m.names.map(q).joined(separator: ", ") + "]" }
        func num(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
        var out = "# " + (file.map { "from \($0)" } ?? "built-in defaults") + "\n"
        for d in dropIns { out += "# then \(d)\n" }
        out += "[app]\nsupported = \(list(policy.appSupported))\nlaunch = \(q(policy.launch.name))\n\n"
        out += "[transition]\nduration = \(num(policy.transitionDuration))\n\n"
        out +=
            "[sensor]\nuri = \(q(sensor.uri.description))\ndevice = \(q(sensor.device))\nrate_hz = \(num(sensor.rateHz))\n"
        out += "mount_matrix = \(q(sensor.mountMatrix))\ntablet_mode = \(q(sensor.tabletMode.rawValue))\n\n"
        out += "[lock]\nlocked = \(lock.locked)\nevdev = \(q(lock.evdev.description))\n"
        out += "relock_after = \(num(lock.relockAfter?.seconds ?? 0))\n\n"
        out += "[display]\nbackend = \(q(display.backend.rawValue))\noutput = \(q(display.output))\n"
        out += "natural = \(q(display.natural.name))\nsupported = \(list(policy.displaySupported))\n"
        out +=
            "mode = \(q(display.mode?.description ?? "auto"))\ntouch = [\(display.touch.map(q).joined(separator: ", "))]\nkiosk = \(display.kiosk)\n"
            + "wait = \(num(display.wait?.seconds ?? 0))\n"
        for name in policy.scenes.keys.sorted() {
            let s = policy.settings(of: name)!
            out += "\n[scenes.\(name)]\nsupported = \(list(s.supported))\nautorotate = \(s.autorotate)\n"
            if let p = s.preferred { out += "preferred = \(q(p.name))\n" }
            out += "strategy = \(q(s.strategy.rawValue))\nforce_when_locked = \(s.forceWhenLocked)\n"
            if s.fitContent { out += "fit_content = true\n" }
            if let clip = policy.scenes[name]?.clip { out += "clip = \(q(clip))\n" }
            if let follows = policy.scenes[name]?.followsTabletMode {
                out += "tablet_mode = \(q(follows ? "auto" : "ignore"))\n"
            }
        }
        let items = player.playlist.map { item -> String in
            guard let o = player.itemOptions[item] else { return q(item) }
            var fields = ["path = \(q(item))"]
            if let d = o.duration { fields.append("duration = \(num(d))") }
            if let m = o.mute { fields.append("mute = \(m)") }
            if let s = o.shape { fields.append("orientation = \(q(s.rawValue))") }
            if let h = o.sha256 { fields.append("sha256 = \(q(h))") }
            if let l = o.live { fields.append("live = \(l)") }
            if let l = o.latency { fields.append("latency = \(num(l))") }
            if let s = o.schedule {
                if !s.days.isEmpty {
                    fields.append(
                        "days = [" + s.days.sorted().map { q(Schedule.dayNames[$0 - 1]) }.joined(separator: ", ") + "]")
                }
                if let f = s.from, let u = s.until {
                    fields += ["from = \(q(Schedule.text(f)))", "until = \(q(Schedule.text(u)))"]
                }
            }
            return "{ " + fields.joined(separator: ", ") + " }"
        }
        out +=
            "\n[player]\nplaylist = [" + items.joined(separator: ", ") + "]\nloop = \(player.loop)\n"
            + "shuffle = \(player.shuffle)\nimage_duration = \(num(player.imageDuration))\n"
            + "confine = \(player.confine)\n"
            + "splash = \(q(player.splash ?? ""))\naudio_device = \(q(player.audioDevice ?? "auto"))\n"
            + "removable_media = \(q(player.removableMedia ?? ""))\nhwdec = \(q(player.hwdec))\n"
            + "remote_schemes = [" + player.remoteSchemes.map(q).joined(separator: ", ") + "]\n"
            + "stall_timeout = \(num(player.stallTimeout?.seconds ?? 0))\n"
        if !player.mpv.isEmpty {
            out += "\n[player.mpv]\n" + player.mpv.keys.sorted().map { "\($0) = \(q(player.mpv[$0]!))\n" }.joined()
        }
        out += "\n[hotkeys]\n"
        for (action, keys) in player.hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            let key =
                action.argument == nil
                ? action.name.replacingOccurrences(of: "-", with: "_") : q(action.words.joined(separator: " "))
            out += "\(key) = [" + keys.map(q).joined(separator: ", ") + "]\n"
        }
        out += "\n[input]\ndevices = [" + input.devices.map(q).joined(separator: ", ") + "]\ngrab = \(input.grab)\n"
        out += "clip_presses = \(q(policy.clipPresses.rawValue))\n"
        out += "\n[metrics]\ntextfile = \(q(metrics.textfile ?? ""))\n"
        out +=
            "listen = \(q(metrics.listen.map { ($0.host.contains(":") ? "[\($0.host)]" : $0.host) + ":\($0.port)" } ?? ""))\n"
        out += "interval = \(num(metrics.interval))\nitems = \(metrics.items)\n"
        out += "\n[proof_of_play]\nfile = \(q(proofOfPlay.file ?? ""))\nmax_mb = \(num(proofOfPlay.maxMB))\n"
        out += "keep = \(proofOfPlay.keep)\n"
        out += "\n[update]\nsource = \(q(Redact.text(update.source)))\ninterval = \(num(update.interval))\n"
        // [screen] only with something set in it, its heading once.
        var screen: [String] = []
        if let plan = screenPlan, let on = plan.from, let off = plan.until {
            screen += ["on = \(q(Schedule.text(on)))", "off = \(q(Schedule.text(off)))"]
            if !plan.days.isEmpty {
                screen.append(
                    "days = [" + plan.days.sorted().map { q(Schedule.dayNames[$0 - 1]) }.joined(separator: ", ") + "]")
            }
            screen.append("cec = \(q(screenCEC))")
        }
        if let idle = screenIdleOff { screen.append("idle_off = \(num(idle))") }
        if screenToastSeconds != Self.defaultToastSeconds {
            screen.append("toast_seconds = \(num(screenToastSeconds))")
        }
        if !screen.isEmpty { out += "\n[screen]\n" + screen.joined(separator: "\n") + "\n" }
        out += "\n[mqtt]\nurl = \(q(mqtt.url))\nca_file = \(q(mqtt.caFile))\nusername = \(q(mqtt.username))\n"
        out += "password = \(q(mqtt.password.isEmpty ? "" : "********"))\npassword_file = \(q(mqtt.passwordFile))\n"
        out += "prefix = \(q(mqtt.prefix))\ndevice = \(q(mqtt.device))\ndiscovery = \(mqtt.discovery)\n"
        out += "discovery_prefix = \(q(mqtt.discoveryPrefix))\nscreenshot_interval = \(mqtt.screenshotInterval)\n"
        if let w = player.wall {
            out += "\n[wall]\ncolumns = \(w.columns)\nrows = \(w.rows)\ncolumn = \(w.column)\nrow = \(w.row)\n"
            out += "bezel = [\(num(w.bezel.across)), \(num(w.bezel.down))]\norientation = \(q(w.orientation.name))\n"
        }
        out +=
            "\n[sync]\ngroup = \(q(sync.group))\nfollow = \(q(sync.follow.rawValue))\nkey_file = \(q(sync.keyFile))\n"
        out +=
            "\n[web]\nlisten = \(q(web.listen.map { ($0.host.contains(":") ? "[\($0.host)]" : $0.host) + ":\($0.port)" } ?? ""))\n"
        out += "auth = \(q(web.auth.rawValue))\npassword_file = \(q(web.passwordFile))\n"
        out += "certificate = \(q(web.certificate))\nkey = \(q(web.key))\nuploads = \(q(web.uploads))\n"
        out += "upload_max_mb = \(num(web.uploadMaxMB))\n"
        out += "edit = \"\(web.editAll ? "all" : "safe")\"\n"
        out += "\n[cache]\ndirectory = \(q(cache.directory))\nmax_mb = \(num(cache.maxMB))\n"
        out +=
            "refresh = \(num(cache.refresh))\nca_file = \(q(cache.caFile))\nread_timeout = \(num(cache.readTimeout))\n"
        let c = classifier
        out += "\n[classifier]\n"
        for field in OrientationClassifier.Parameters.fields {
            out += "\(field.name) = \(num(c[keyPath: field.keyPath]))\n"
        }
        return out
    }
}
