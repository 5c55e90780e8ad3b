import Config
import Diagnostics
import Foundation
import OrientationCore
import Testing

func parse(_ text: String) throws -> UprightConfiguration { try UprightConfiguration.parse(text, file: "u.toml") }

/// The diagnostics for `text` (errors thrown, or warnings kept), rendered.
func diagnostics(_ text: String) -> [String] {
    do {
        return try parse(text).warnings.map(\.description)
    } catch let e as ConfigurationError {
        return e.diagnostics.map(\.description)
    } catch {
        return ["unexpected \(error)"]
    }
}

@Suite("Configuration")
struct ConfigTests {
    @Test func theShippedExampleLoadsWithoutWarnings() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/upright.toml").standardized
        let c = try UprightConfiguration.load(path: example.path)
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        #expect(c.policy.appSupported == .allButUpsideDown)
        #expect(c.policy.effectiveMask(of: Scene.fullscreen) == .landscape)
        #expect(c.policy.settings(of: Scene.fullscreen)?.preferred == .landscapeRight)
        #expect(c.player.hotkeys[.fullscreen] == ["f", "F11", "MBTN_LEFT_DBL"])
        #expect(c.policy.problems.isEmpty)
    }

    @Test func ytdlWithTheConfinementOnIsAWarningAndOffIsNot() throws {
        let on = diagnostics("[player.mpv]\nytdl = \"yes\"\n")
        #expect(on.count == 1 && on[0].contains("u.toml:2:8: warning: 'player.mpv.ytdl' = yes: yt-dlp"), "\(on)")
        #expect(diagnostics("[player]\nconfine = false\n[player.mpv]\nytdl = true\n").isEmpty)
        #expect(try parse("[player]\nconfine = false\n").player.confine == false)
        #expect(try parse("").player.confine)
    }

    @Test func theShippedExampleShowsEverySettingWithItsDefault() throws {
        // As its first line says: loading it changes nothing.
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/upright.toml").standardized
        let c = try UprightConfiguration.load(path: example.path)
        var defaults = UprightConfiguration()
        defaults.file = c.file
        #expect(c.toml == defaults.toml)
    }

    @Test func anEmptyFileGivesTheDefaults() throws {
        let c = try parse("")
        #expect(c.policy == PolicyConfiguration())
        #expect(c.classifier == OrientationClassifier.Parameters())
        #expect(c.sensor.uri == "local:")
    }

    @Test func aSceneOverridesOnlyWhatItSets() throws {
        let c = try parse("[scenes.fullscreen]\npreferred = \"landscape-left\"\n[scenes.menu]\nautorotate = true\n")
        let full = try #require(c.policy.settings(of: Scene.fullscreen))
        #expect(full.preferred == .landscapeLeft && full.supported == .landscape && full.autorotate)
        let menu = try #require(c.policy.settings(of: "menu"))
        #expect(menu.supported == .portrait && menu.autorotate)
    }

    @Test func anUnknownOrientationPointsAtTheName() {
        let text = """
            [app]
            supported = ["portrait",
                         "landscap-left"]
            """
        #expect(
            diagnostics(text) == [
                "u.toml:3:14: error: unknown orientation 'landscap-left'; expected one of: portrait, landscape-right, "
                    + "portrait-upside-down, landscape-left"
            ])
        #expect(
            diagnostics("[app]\nlaunch = \"face-up\"\n") == [
                "u.toml:2:10: error: unknown orientation 'face-up'; expected one of: portrait, landscape-right, "
                    + "portrait-upside-down, landscape-left ('face-up' is a device orientation, not an interface one)"
            ])
    }

    @Test func anEmptyIntersectionNamesTheSceneTheMasksAndThePlace() {
        let text =
            "[display]\nsupported = [\"portrait\", \"landscape-right\"]\n\n[scenes.video]\nsupported = [\"landscape-left\"]\n"
        #expect(
            diagnostics(text) == [
                "u.toml:5:1: error: scene 'video' can show no orientation: its supported [landscape-left], the app's "
                    + "[portrait, landscape-right, landscape-left] and the display's [portrait, landscape-right] "
                    + "have nothing in common"
            ])
    }

    @Test func preferredOutsideTheMask() {
        let text = "[scenes.fullscreen]\n  preferred = \"portrait\"\n"
        #expect(
            diagnostics(text) == [
                "u.toml:2:3: error: scene 'fullscreen' prefers 'portrait', which is outside what it may show "
                    + "[landscape-right, landscape-left]"
            ])
    }

    @Test func unknownKeysAreWarningsWithTheClosestKnownKey() {
        #expect(
            diagnostics("[scenes.fullscreen]\nautorotat = true\n[sensr]\nx = 1\n[app]\nzzzzzz = 1\n") == [
                "u.toml:2:1: warning: unknown key 'scenes.fullscreen.autorotat'; did you mean 'autorotate'?",
                "u.toml:3:1: warning: unknown key 'sensr'; did you mean 'sensor'?",
                "u.toml:6:1: warning: unknown key 'app.zzzzzz'; it is ignored",
            ])
    }

    @Test func syntaxErrorsComeFromTheParserWithTheirPlace() {
        let d = diagnostics("[app]\nsupported = [\"portrait\",\nlaunch = 3\n")
        #expect(d.count == 1)
        #expect(d[0].hasPrefix("u.toml:3:") && d[0].contains(": error: invalid TOML: "))
    }

    @Test(arguments: [
        ("[lock]\nlocked = \"yes\"\n", "u.toml:2:10: error: 'lock.locked' must be true or false, not string"),
        (
            "[sensor]\nuri = \"http://x\"\n",
            "u.toml:2:7: error: bad sensor URI 'http://x'; expected local:, ip:HOST[:PORT], usb:, serial:, xml:FILE, replay:FILE.csv[?loop=1&speed=N] or none"
        ),
        ("[sensor]\nrate_hz = 0\n", "u.toml:2:11: error: 'sensor.rate_hz' must be above 0 and at most 1000, not 0.0"),
        (
            "[display]\nbackend = \"wayland\"\n",
            "u.toml:2:11: error: unknown display backend 'wayland'; expected one of: auto, sway, wlroots, gnome, kde, x11, none"
        ),
        (
            "[scenes.fullscreen]\nstrategy = \"both\"\n",
            "u.toml:2:12: error: unknown strategy 'both'; expected one of: surface, interface, auto"
        ),
        (
            "[scenes.fullscreen]\ntablet_mode = \"on\"\n",
            "u.toml:2:15: error: unknown tablet_mode 'on'; expected one of: auto, ignore"
        ),
        (
            "[classifier]\nhysteresis = 50\n",
            "u.toml:2:14: error: hysteresis must be at least 0° and under 45°, not 50.0"
        ),
        (
            "[proof_of_play]\nfile = \"plays.jsonl\"\n",
            "u.toml:2:8: error: 'proof_of_play.file' must be an absolute path, not 'plays.jsonl'"
        ),
        (
            "[player]\nhwdec = \"\"\n",
            "u.toml:2:9: error: 'player.hwdec' must be \"board\" or one of mpv's hwdec values (no, auto-safe, vaapi, ...), not ''"
        ),
        (
            "[sync]\ngroup = \"lobby-wall\"\n",
            "u.toml:2:9: error: 'sync.group' needs [mqtt] url: the group's screens find each other through the broker"
        ),
        (
            "[mqtt]\nurl = \"mqtt://b\"\n[sync]\ngroup = \"lobby/wall\"\n",
            "u.toml:4:9: error: 'sync.group' must be a topic level without /, # or +, not 'lobby/wall'"
        ),
        (
            "[wall]\ncolumns = 3\ncolumn = 3\n",
            "u.toml:3:10: error: 'wall.column' must be 0 to 2 (from the left, in a wall of 3 columns), not 3.0"
        ),
        (
            "[wall]\nbezel = [0.02]\n",
            "u.toml:2:9: error: 'wall.bezel' must be two shares of a screen hidden behind the bezels, across and down, each 0 to 0.5 ([0.02, 0.0])"
        ),
        (
            "[wall]\nrows = 1.5\n",
            "u.toml:2:8: error: 'wall.rows' must be a whole number, not 1.5"
        ),
        (
            "[wall]\norientation = \"sideways\"\n",
            "u.toml:2:15: error: unknown orientation 'sideways'; expected one of: portrait, landscape-right, portrait-upside-down, landscape-left"
        ),
        (
            "[sync]\nfollow = \"beat\"\n",
            "u.toml:2:10: error: 'sync.follow' must be \"clock\" or \"leader\", not 'beat'"
        ),
        (
            "[mqtt]\nscreenshot_interval = 5\n",
            "u.toml:2:23: error: 'mqtt.screenshot_interval' must be 10 to 86400 seconds, or 0 for no screenshots, not 5.0"
        ),
        (
            "[player]\nplaylist = [{ path = \"rtsp://cam/1\", latency = 40 }]\n",
            "u.toml:2:12: error: a playlist item's 'latency' must be 0.5 to 30 seconds behind the stream's newest picture, not 40.0"
        ),
        (
            "[transition]\nduration = -1\n",
            "u.toml:2:12: error: 'transition.duration' must be 0 or more seconds, not -1.0"
        ),
        (
            "[app]\nlaunch = \"landscape-left\"\nsupported = [\"portrait\", \"landscape-right\"]\n",
            "u.toml:2:1: error: the launch orientation 'landscape-left' is not allowed by the app [portrait, landscape-right] and the display [portrait, landscape-right, portrait-upside-down, landscape-left]"
        ),
        (
            "[app]\nsupported = [\"portrait\"]\n",
            "u.toml:2:1: error: scene 'fullscreen' can show no orientation: its supported [landscape-right, landscape-left], the app's [portrait] and the display's [portrait, landscape-right, portrait-upside-down, landscape-left] have nothing in common (a built-in scene: give [scenes.fullscreen] a supported list the app and display allow)"
        ),
    ])
    func badValues(text: String, expected: String) {
        #expect(diagnostics(text) == [expected])
    }

    @Test(arguments: [
        (
            "[web]\nlisten = \"0.0.0.0:8080\"\npassword_file = \"/nonexistent/web-password\"\n",
            "u.toml:2:10: error: 'web.listen' needs a password and /nonexistent/web-password does not exist: write one "
                + "with `upright web-password --file /nonexistent/web-password`"
        ),
        (
            "[web]\nlisten = \":8080\"\npassword_file = \"/nonexistent/pw\"\n",
            "u.toml:2:10: error: 'web.listen' needs a password and /nonexistent/pw does not exist: write one with "
                + "`upright web-password --file /nonexistent/pw`, or set auth = \"none\" (loopback only)"
        ),
        (
            "[web]\nlisten = \"192.0.2.7:8080\"\nauth = \"none\"\n",
            "u.toml:3:8: error: 'web.auth = \"none\"' serves the page to anyone who reaches 192.0.2.7; it is allowed "
                + "only on loopback (127.0.0.1, ::1). Set a password with `upright web-password`"
        ),
        (
            "[web]\nlisten = \"8080\"\n",
            "u.toml:2:10: error: 'web.listen' must be HOST:PORT (\"127.0.0.1:8080\", \"[::1]:8080\", \":8080\" for loopback), not '8080'"
        ),
        ("[web]\nauth = \"basic\"\n", "u.toml:2:8: error: 'web.auth' must be \"password\" or \"none\", not 'basic'"),
        ("[web]\nuploads = \"media\"\n", "u.toml:2:11: error: 'web.uploads' must be an absolute path, not 'media'"),
        (
            "[web]\nlisten = \":8080\"\nauth = \"none\"\ncertificate = \"/etc/hostname\"\n",
            "u.toml:4:15: error: 'web.certificate' and 'web.key' go together: TLS needs both files (or neither, for plain HTTP)"
        ),
        (
            "[web]\nupload_max_mb = 0\n",
            "u.toml:2:17: error: 'web.upload_max_mb' must be 1 to 1000000 megabytes, not 0.0"
        ),
    ])
    func webPageErrors(text: String, expected: String) {
        #expect(diagnostics(text) == [expected])
    }

    @Test func aPasswordFileMustHoldABcryptHash() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "hunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        let text = "[web]\nlisten = \"[::1]:8080\"\npassword_file = \"\(file)\"\n"
        #expect(diagnostics(text).first?.contains("\(file) holds no bcrypt hash (a line starting with $2b$)") == true)
        // htpasswd's user:hash lines are read too.
        try "admin:$2y$10$abcdefghijklmnopqrstuuMGNcjvZ0uJ1NwDHtb1Rk1u0ynqs9JDa\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(diagnostics(text) == [])
        #expect(WebPassword.problem(file: file) == nil)
    }

    @Test func aGroupKeyFileMustBeThe32BytesOrMoreOfItsOwnerAlone() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let text = "[mqtt]\nurl = \"mqtt://b\"\n[sync]\ngroup = \"w\"\nkey_file = \"\(file)\"\n"
        #expect(diagnostics(text) == ["u.toml:5:12: error: 'sync.key_file': \(file) does not exist"])
        _ = FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 16))
        chmod(file, 0o644)
        #expect(
            diagnostics(text) == [
                "u.toml:5:12: error: 'sync.key_file': \(file) may be read or written by other users (mode 0644): `chmod 600 \(file)`"
            ])
        chmod(file, 0o600)
        #expect(
            diagnostics(text) == [
                "u.toml:5:12: error: 'sync.key_file': \(file) holds 16 bytes; a group key needs 32 or more: `head -c 32 /dev/urandom > \(file)`"
            ])
        _ = FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 32))
        chmod(file, 0o600)
        #expect(diagnostics(text) == [])
        #expect(try parse(text).sync.keyFile == file)
    }

    @Test func everyErrorIsReportedAtOnce() {
        #expect(diagnostics("[lock]\nlocked = 1\n[display]\nbackend = \"x\"\n").count == 2)
    }

    @Test func missingFile() {
        #expect(throws: ConfigurationError.self) { try UprightConfiguration.load(path: "/nonexistent/u.toml") }
        do {
            _ = try UprightConfiguration.load(path: "/nonexistent/u.toml")
        } catch {
            #expect(
                error.description
                    == "/nonexistent/u.toml: error: cannot read the configuration file: no such file or directory")
        }
    }

    @Test func aDirectoryIsNotAConfigurationFile() {
        do {
            _ = try UprightConfiguration.load(path: NSTemporaryDirectory())
            Issue.record("a directory was read")
        } catch {
            #expect(error.description.hasSuffix("error: cannot read the configuration file: is a directory"))
        }
    }

    @Test func classifierSettings() throws {
        let c = try parse("[classifier]\nsettle_time = 0.2\nhysteresis = 20\n")
        #expect(c.classifier.settleTime == 0.2 && c.classifier.hysteresis == 20)
    }
}

@Suite("Effective configuration")
struct EffectiveConfigurationTests {
    /// A wall's grid is given in `[app] launch`'s orientation unless it names its own; both read
    /// back from the rendered file.
    @Test func aWallsOrientationIsTheLaunchOnesUnlessItSays() throws {
        let launched = try UprightConfiguration.parse(
            "[app]\nsupported = [\"landscape-left\", \"portrait\", \"landscape-right\"]\nlaunch = \"landscape-left\"\n"
                + "[scenes.idle]\nsupported = [\"landscape-left\"]\n[scenes.inline]\nsupported = [\"landscape-left\"]\n"
                + "[wall]\ncolumns = 3\n")
        #expect(launched.player.wall?.orientation == .landscapeLeft, "\(launched.warnings)")
        let own = try UprightConfiguration.parse("[wall]\ncolumns = 3\norientation = \"landscape-right\"\n")
        #expect(own.player.wall?.orientation == .landscapeRight)
        #expect(try UprightConfiguration.parse(own.toml).player.wall == own.player.wall)
    }

    @Test func aStreamsLatencyReadsAndRendersBack() throws {
        let c = try UprightConfiguration.parse(
            "[player]\nplaylist = [{ path = \"rtsp://cam/1\", latency = 2.5 }, { path = \"rtsp://cam/2\", latency = 1 }]\n"
        )
        #expect(c.player.itemOptions["rtsp://cam/1"]?.latency == 2.5)
        #expect(c.player.itemOptions["rtsp://cam/2"]?.latency == 1)
        let again = try UprightConfiguration.parse(c.toml)
        #expect(again.player.itemOptions == c.player.itemOptions && again.warnings.isEmpty)
    }

    @Test func theRenderedConfigurationReadsBackTheSame() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/upright.toml").standardized
        let c = try UprightConfiguration.load(path: example.path)
        let again = try UprightConfiguration.parse(c.toml, file: "rendered.toml")
        #expect(again.warnings.isEmpty, "\(again.warnings)")
        #expect(samePolicy(again.policy, c.policy))
        #expect(again.classifier == c.classifier)
        #expect(
            again.sensor == c.sensor && again.lock == c.lock && again.display == c.display && again.player == c.player)
        #expect(again.player.hotkeys == c.player.hotkeys)
        #expect(samePolicy(try UprightConfiguration.parse(UprightConfiguration().toml).policy, PolicyConfiguration()))
    }

    @Test func theSearchOrder() throws {
        #expect(
            UprightConfiguration.searchPath(environment: ["HOME": "/home/k", "XDG_CONFIG_HOME": "/x"])
                == ["/x/upright/upright.toml", "/etc/upright/upright.toml"])
        #expect(
            UprightConfiguration.searchPath(environment: ["HOME": "/home/k"])
                == ["/home/k/.config/upright/upright.toml", "/etc/upright/upright.toml"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xdg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("upright"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "[lock]\nlocked = true\n".write(
            to: dir.appendingPathComponent("upright/upright.toml"), atomically: true, encoding: .utf8)
        let found = try UprightConfiguration.locate(
            explicit: nil, environment: ["XDG_CONFIG_HOME": dir.path, "HOME": "/nonexistent"])
        #expect(found.lock.locked && found.file == dir.appendingPathComponent("upright/upright.toml").path)
    }
}

/// Two policy configurations that decide alike: the same masks, timing and resolved scenes.
func samePolicy(_ a: PolicyConfiguration, _ b: PolicyConfiguration) -> Bool {
    a.appSupported == b.appSupported && a.launch == b.launch && a.displaySupported == b.displaySupported
        && a.initialScene == b.initialScene && a.transitionDuration == b.transitionDuration
        && Set(a.scenes.keys) == Set(b.scenes.keys)
        && a.scenes.keys.allSatisfy { a.settings(of: $0) == b.settings(of: $0) }
}

@Suite("Hotkeys: the one vocabulary of actions")
struct HotkeyConfigurationTests {
    @Test func everyActionCanBeBoundWithoutAWarning() throws {
        let c = try parse(
            """
            [hotkeys]
            accept_suggestion = ["a"]
            unlock = ["u"]
            lock = "Ctrl+l"
            "rotate-to landscape-left" = ["1", "KP1"]
            "scene-push menu" = "m"
            rotate = "r"
            """)
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        #expect(c.player.hotkeys[.acceptSuggestion] == ["a"])
        #expect(c.player.hotkeys[.unlock] == ["u"])
        #expect(c.player.hotkeys[.lock] == ["Ctrl+l"])
        #expect(c.player.hotkeys[.rotateTo(.landscapeLeft)] == ["1", "KP1"])
        #expect(c.player.hotkeys[.scenePush("menu")] == ["m"])
        #expect(c.player.hotkeys[.rotate] == ["r"])
        #expect(
            c.player.hotkeys[.fullscreen] == ["f", "F11", "MBTN_LEFT_DBL"],
            "the defaults of actions the table leaves out stay")
    }

    @Test(arguments: [
        (
            "[hotkeys]\nfullscreen = [\"f\", \"F13x\"]\n",
            "u.toml:2:20: error: 'hotkeys.fullscreen': mpv has no key named 'F13x'"
        ),
        (
            "[hotkeys]\nfulscreen = \"f\"\n",
            "u.toml:2:1: error: unknown action 'fulscreen' in [hotkeys]; did you mean 'fullscreen'?"
        ),
        (
            "[hotkeys]\n\"rotate-to sideways\" = \"s\"\n",
            "u.toml:2:1: error: [hotkeys] 'rotate-to sideways': rotate-to needs an orientation"
        ),
        ("[hotkeys]\nlock = \"Hyper+l\"\n", "u.toml:2:8: error: 'hotkeys.lock': 'Hyper' is not a modifier"),
        (
            "[hotkeys]\nfullscreen = [\"f\", \"KEY_F1l\"]\n",
            "u.toml:2:20: error: 'hotkeys.fullscreen': Linux has no key named 'KEY_F1l'; did you mean KEY_F1"
        ),
        ("[hotkeys]\n\"play promo\" = \"BTN_0\"\n", "u.toml:2:1: error: [hotkeys] 'play promo'"),
        (
            "[input]\ndevices = [\"auto\", \"event3\"]\n",
            "u.toml:2:20: error: 'input.devices': 'event3' is neither \"auto\" nor a device path"
        ),
        (
            "[player]\nplaylist = [{ path = \"https://e/a.mp4\", days = [\"mon\", \"funday\"] }]\n",
            "u.toml:2:56: error: unknown day 'funday' in the schedule of https://e/a.mp4"
        ),
        (
            "[player]\nplaylist = [{ path = \"https://e/a.mp4\", from = \"08:00\", until = \"08:00\" }]\n",
            "u.toml:2:12: error: the schedule of https://e/a.mp4 has an empty window"
        ),
        (
            "[metrics]\nlisten = \"localhost\"\n",
            "u.toml:2:10: error: 'metrics.listen' must be HOST:PORT"
        ),
        (
            "[metrics]\ntextfile = \"upright.prom\"\n",
            "u.toml:2:12: error: 'metrics.textfile' must be an absolute path"
        ),
        (
            "[input]\nclip_presses = \"later\"\n",
            "u.toml:2:16: error: unknown clip_presses 'later'; expected one of: ignore, queue"
        ),
    ])
    func aBadWordIsAnErrorWithItsPlace(text: String, expected: String) {
        // (`play promo` with no clip scene: the policy's check names it at the key.)
        let found = diagnostics(text)
        #expect(found.count == 1 && found[0].hasPrefix(expected), "\(found)")
    }

    @Test func theOldRotateToSpellingStillLoadsWithAWarning() throws {
        let c = try parse("[hotkeys]\nrotate_to = [\"r\"]\n")
        #expect(c.player.hotkeys[.rotate] == ["r"])
        #expect(c.warnings.first?.description.contains("is now 'rotate'") == true)
    }
}

@Suite("Configuration: input devices and clips")
struct InputConfigurationTests {
    @Test func linuxKeyNamesBindInputDevicesAndMpvNamesTheWindow() throws {
        let c = try parse(
            """
            [hotkeys]
            fullscreen = ["f", "KEY_F11", "MBTN_LEFT_DBL"]
            "play promo" = ["BTN_0", "KEY_OK"]
            [scenes.promo]
            supported = ["landscape-left"]
            clip = "av://lavfi:testsrc2=duration=2"
            [input]
            devices = ["/dev/input/by-path/platform-gpio-keys-event"]
            grab = true
            clip_presses = "queue"
            [lock]
            evdev = "none"
            """)
        let plan = c.inputPlan
        #expect(plan.keys == [87, 0x100, 0x160] && plan.grab && plan.lockSwitch == .none)
        #expect(plan.devices == ["/dev/input/by-path/platform-gpio-keys-event"])
        #expect(c.inputActions == [87: .fullscreen, 0x100: .play("promo"), 0x160: .play("promo")])
        #expect(c.policy.clipPresses == .queue && c.policy.scenes["promo"]?.clip == "av://lavfi:testsrc2=duration=2")
        // A device that is not there (yet) is a warning: it is tried while Upright runs.
        #expect(
            c.warnings.map(\.description).contains {
                $0.hasPrefix(
                    "u.toml:8:12: warning: 'input.devices': /dev/input/by-path/platform-gpio-keys-event: No such file")
            }, "\(c.warnings)")
        // The rendered configuration reads back the same.
        let again = try parse(c.toml)
        #expect(again.inputPlan == plan && again.policy.clipPresses == .queue)
        #expect(again.policy.scenes["promo"]?.clip == c.policy.scenes["promo"]?.clip)
    }

    @Test func theDefaultsOpenNothingAndADoubleTapTogglesFullScreen() throws {
        let c = try parse("")
        #expect(c.inputPlan.keys.isEmpty && c.input.devices == ["auto"] && !c.input.grab)
        #expect(c.player.hotkeys[.fullscreen] == ["f", "F11", "MBTN_LEFT_DBL"])
        #expect(c.policy.clipPresses == .ignore)
    }
}

/// Drop-ins: `FILE.d/*.toml` merged after the main file in name order, each error in its own file.
@Suite("Configuration drop-ins")
struct DropInTests {
    /// A main file and its drop-ins in a new directory; returns the main file's path.
    static func files(_ main: String, _ dropIns: [(String, String)]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dropins-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/upright.toml.d", withIntermediateDirectories: true)
        try main.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        for (name, text) in dropIns {
            try text.write(toFile: dir + "/upright.toml.d/" + name, atomically: true, encoding: .utf8)
        }
        return dir + "/upright.toml"
    }

    @Test func dropInsOverrideInNameOrderAndEachKeyKnowsItsFile() throws {
        let main = try Self.files(
            "[sensor]\nrate_hz = 25\n[player]\nloop = true\n[scenes.menu]\nsupported = [\"portrait\"]\n",
            [
                ("20-fleet.toml", "[sensor]\nrate_hz = 50\n[scenes.menu]\nautorotate = true\n"),
                ("10-site.toml", "[sensor]\nrate_hz = 10\n[player]\nloop = false\n"),
                ("README", "not toml"), (".hidden.toml", "[sensor]\nrate_hz = 1\n"),
            ])
        let c = try UprightConfiguration.load(path: main)
        #expect(c.dropIns.map { ($0 as NSString).lastPathComponent } == ["10-site.toml", "20-fleet.toml"])
        #expect(c.sensor.rateHz == 50 && !c.player.loop, "the later file wins, key by key")
        // A scene named in two files: each sets its own keys of it.
        #expect(c.policy.scenes["menu"]?.supported == .portrait && c.policy.scenes["menu"]?.autorotate == true)
        #expect(c.origins["sensor.rate_hz"]?.hasSuffix("20-fleet.toml") == true)
        #expect(c.origins["player.loop"]?.hasSuffix("10-site.toml") == true)
        #expect(c.origins["scenes.menu.supported"] == main)
        let annotated = c.tomlWithOrigins
        #expect(annotated.contains("rate_hz = 50  # \(c.dropIns[1])"), "\(annotated)")
        #expect(annotated.contains("device = \"auto\"  # default"))
    }

    @Test func anErrorInADropInIsPlacedInIt() throws {
        let main = try Self.files(
            "[scenes.menu]\nsupported = [\"portrait\"]\n",
            [
                ("50-bad.toml", "[sensor]\nrate_hz = \"fast\"\n"),
                ("60-scene.toml", "[scenes.menu]\npreferred = \"landscape-left\"\n"),
            ])
        do {
            _ = try UprightConfiguration.load(path: main)
            Issue.record("expected an error")
        } catch {
            let text = error.description
            #expect(text.contains("50-bad.toml:2:11: error: 'sensor.rate_hz' must be a number"), "\(text)")
        }
        // A problem of the merged configuration is placed at the key in the file that set it last.
        let other = try Self.files(
            "[scenes.menu]\nsupported = [\"portrait\"]\n",
            [("60-scene.toml", "[scenes.menu]\npreferred = \"landscape-left\"\n")])
        do {
            _ = try UprightConfiguration.load(path: other)
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description.contains("60-scene.toml:2:1: error: scene 'menu' prefers"), "\(error.description)")
        }
    }
}

@Suite("Configuration: the screen's power plan")
struct ScreenConfigurationTests {
    @Test func aPlanWithDaysAndCEC() throws {
        let c = try parse("[screen]\non = \"07:00\"\noff = \"22:30\"\ndays = [\"mon\", \"Friday\"]\ncec = \"off\"\n")
        #expect(c.screenPlan?.from == 7 * 60 && c.screenPlan?.until == 22 * 60 + 30)
        #expect(c.screenPlan?.days == [1, 5])
        #expect(c.screenCEC == "off")
        #expect(
            c.toml.contains("[screen]\non = \"07:00\"\noff = \"22:30\"\ndays = [\"mon\", \"fri\"]\ncec = \"off\"\n"))
        #expect(try parse("[screen]\non = \"07:00\"\noff = \"22:00\"\n").screenCEC == "auto")
    }

    /// `idle_off` alone (no plan), written back; 0 is never.
    @Test func anIdleTimeWithOrWithoutAPlan() throws {
        let c = try parse("[screen]\nidle_off = 90\n")
        #expect(c.screenIdleOff == 90 && c.screenPlan == nil)
        #expect(c.toml.contains("[screen]\nidle_off = 90\n"))
        #expect(try parse("[screen]\nidle_off = 0\n").screenIdleOff == nil)
        #expect(throws: (any Error).self) { try parse("[screen]\nidle_off = -5\n") }
    }

    /// How long a toast stays: 10 s unless `toast_seconds` says, written back; a second at least.
    @Test func aToastsTime() throws {
        #expect(try parse("").screenToastSeconds == 10)
        let c = try parse("[screen]\ntoast_seconds = 30\n")
        #expect(c.screenToastSeconds == 30 && c.toml.contains("[screen]\ntoast_seconds = 30\n"))
        #expect(try parse(c.toml).screenToastSeconds == 30)
        #expect(throws: (any Error).self) { try parse("[screen]\ntoast_seconds = 0\n") }
        // With the power plan and idle_off: one [screen], every key under it.
        let all = try parse("[screen]\non = \"07:00\"\noff = \"22:00\"\nidle_off = 90\ntoast_seconds = 30\n").toml
        #expect(all.components(separatedBy: "[screen]").count == 2, "\(all)")
        #expect(
            all.contains(
                "[screen]\non = \"07:00\"\noff = \"22:00\"\ncec = \"auto\"\nidle_off = 90\ntoast_seconds = 30\n"),
            "\(all)")
    }

    @Test(arguments: [
        (
            "[screen]\non = \"07:00\"\noff = \"7:00\"\n",
            "u.toml:3:7: error: [screen] 'on' and 'off' are the same time: an empty window"
        ),
        (
            "[screen]\non = \"7h\"\noff = \"22:00\"\n",
            "u.toml:2:6: error: 'screen.on' must be a time HH:MM (\"07:00\", \"22:30\")"
        ),
        ("[screen]\non = \"07:00\"\n", "u.toml:1:1: error: [screen] needs both 'on' and 'off'"),
        (
            "[screen]\non = \"07:00\"\noff = \"22:00\"\ndays = [\"mon\", \"funday\"]\n",
            "u.toml:4:16: error: unknown day 'funday' in 'screen.days'; expected: mon, tue, wed, thu, fri, sat, sun"
        ),
        (
            "[screen]\non = \"07:00\"\noff = \"22:00\"\ncec = \"hdmi\"\n",
            "u.toml:4:7: error: 'screen.cec' must be \"auto\", \"off\" or an adapter's path (\"/dev/cec0\")"
        ),
        (
            "[screen]\non = \"07:00\"\noff = \"22:00\"\ncec = \"/dev/cec9\"\n",
            "u.toml:4:7: warning: 'screen.cec': /dev/cec9: no such device (used when it appears)"
        ),
    ])
    func badPlansSayWhereAndWhy(text: String, expected: String) {
        #expect(diagnostics(text) == [expected])
    }
}
