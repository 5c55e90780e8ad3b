public import OrientationCore

/// A screenshot in a control reply: the PNG's bytes in base64, and what took it.
public struct Screenshot: Codable, Sendable, Hashable {
    public var png: String
    /// `mpv's window`, `the compositor's screen (grim)`, `the video frame`.
    public var source: String

    public init(png: String, source: String) {
        self.png = png
        self.source = source
    }
}

/// The display as the status reports it.
public struct DisplayReport: Codable, Sendable, Hashable {
    /// The backend's name (`sway`, `wlroots`, `x11`, `none`).
    public var backend: String
    /// The output can be turned now.
    public var turnsOutputs: Bool
    /// How the backend was chosen.
    public var reason: String
    public var output: String?
    /// The monitor on it ("Make Model Serial"), when the backend says.
    public var identity: String?
    /// The output's transform, clockwise degrees.
    public var transform: Int?
    /// Why outputs cannot turn, or the last fault.
    public var problem: String?
    /// Other programs running that turn outputs too.
    public var others: [String] = []
    /// The desktop the session runs in (`XDG_CURRENT_DESKTOP`), when it names one.
    public var desktop: String?

    public init(
        backend: String, turnsOutputs: Bool, reason: String, output: String? = nil, transform: Int? = nil,
        problem: String? = nil
    ) {
        self.backend = backend
        self.turnsOutputs = turnsOutputs
        self.reason = reason
        self.output = output
        self.transform = transform
        self.problem = problem
    }

    /// No display backend.
    public static let none = DisplayReport(backend: "none", turnsOutputs: false, reason: "no display backend")

    enum CodingKeys: String, CodingKey {
        case backend, turnsOutputs = "turns_outputs", reason, output, identity, transform, problem, desktop
        case others = "others_turning_outputs"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(backend, forKey: .backend)
        try c.encode(turnsOutputs, forKey: .turnsOutputs)
        try c.encode(reason, forKey: .reason)
        try c.encode(output, forKey: .output)
        try c.encodeIfPresent(identity, forKey: .identity)
        try c.encode(transform, forKey: .transform)
        try c.encode(problem, forKey: .problem)
        try c.encode(others, forKey: .others)
        try c.encode(desktop, forKey: .desktop)
    }
}

/// The session's state, as `upright ctl status` prints it.
public struct SessionStatus: Codable, Sendable, Hashable {
    public var device: DeviceOrientation
    public var locked: Bool
    public var interface: InterfaceOrientation
    public var strategy: AppliedStrategy
    /// The scene stack, bottom first.
    public var scenes: [String]
    public var sensor: String
    public var display: DisplayReport
    public var lastDecision: RotationDecision.Record?
    public var suggestion: InterfaceOrientation?
    public var playing: String?
    /// Commands waiting for the rotation under way to end.
    public var queued: [String]
    /// The clip scene playing, and the clips waiting behind it.
    public var clip: String?
    public var clipsQueued: [String] = []
    /// The input devices open, and those that cannot be opened with the reason.
    public var input: InputReport = InputReport()
    /// The screen's power plan: on or off, or `nil` without a plan; and its next change (`HH:MM`, local).
    public var screen: ScreenPower?
    public var screenNextChange: String?
    /// Whether the power plan is followed (`power-plan on`) or set aside; `nil` without a plan.
    public var powerPlanFollowed: Bool?
    /// The MQTT connection: "connected to …", or why not and that it is retried.
    public var mqtt: String?
    /// mpv's video decoder for the item playing and the frames dropped (the shell adds it: the
    /// core does not follow it).
    public var decoder: DecoderReport?
    /// The live stream playing: its latency held, what mpv holds of it, the speed (the shell adds it).
    public var stream: LiveStreamReport?
    /// The item after the one playing (the shell adds it).
    public var next: String?
    /// Items that failed to play, each with why, the latest last (cleared when one plays).
    public var failed: [ItemFailure] = []
    /// The last reading the detector had, x, y and z in m/s² (the shell adds it); `nil` without one.
    public var gravity: [Double]?
    /// Each remote item of the playlist: cached, stale, downloading or missing, and why (the shell
    /// adds it; empty without one).
    public var cache: [RemoteItemStatus] = []
    /// The wall's sync group, and how this screen follows it (the shell adds it); `nil` without one.
    public var sync: SyncReport?
    /// Seconds until the lock comes back by itself (`[lock] relock_after`); `nil` when it does not.
    public var relockIn: Double?
    /// What the tablet-mode switch says: "tablet", "laptop: auto-rotation off", …; `nil` without one.
    public var tabletMode: String?
    /// The SMIL index playing, and what each of its zones shows (the shell adds it); `nil` without one.
    public var smil: PresentationStatus?
    /// The node's health, as `upright health` says it (the shell adds it).
    public var health: HealthReport?
    /// The board's power and heat as sysfs shows them (the shell adds it).
    public var hardware: HardwareStatus?
    /// Seconds since the last sign of a person, and whether one was there within `idle_off`
    /// (the screen is not asleep for want of one), with `[screen] idle_off`; `nil` without it.
    public var presenceAgo: Double?
    public var present: Bool?
    /// mpv's volume (0–100) and whether it is muted (the shell adds them); `nil` when it does not say.
    public var volume: Int?
    public var muted: Bool?
    /// The screen's brightness (0–100) where a backlight says it (the shell adds it).
    public var brightness: Int?
    /// The words on screen as a toast (`toast`), until its time is over; `nil` without one.
    public var toast: String?
    /// The node: when this process started (ISO 8601, UTC), the system's uptime in seconds, and
    /// the free room where it keeps files (the cache, the uploads) (the shell adds them).
    public var started: String?
    public var uptime: Double?
    public var storage: [StorageRoom] = []
    /// The version installed, and the newest the fleet publishes (`[update]`) (the shell adds it).
    public var update: UpdateStatus?

    public init(
        device: DeviceOrientation, locked: Bool, interface: InterfaceOrientation, strategy: AppliedStrategy,
        scenes: [String], sensor: String, display: DisplayReport, lastDecision: RotationDecision.Record?,
        suggestion: InterfaceOrientation?, playing: String?, queued: [String], clip: String?,
        clipsQueued: [String] = [], input: InputReport = InputReport(), screen: ScreenPower? = nil,
        screenNextChange: String? = nil, powerPlanFollowed: Bool? = nil, mqtt: String? = nil,
        failed: [ItemFailure] = []
    ) {
        (self.device, self.locked, self.interface, self.strategy) = (device, locked, interface, strategy)
        (self.scenes, self.sensor, self.display, self.lastDecision) = (scenes, sensor, display, lastDecision)
        (self.suggestion, self.playing, self.queued, self.clip) = (suggestion, playing, queued, clip)
        (self.clipsQueued, self.input, self.screen) = (clipsQueued, input, screen)
        (self.screenNextChange, self.powerPlanFollowed, self.mqtt, self.failed) =
            (screenNextChange, powerPlanFollowed, mqtt, failed)
    }

    enum CodingKeys: String, CodingKey {
        case device, locked, interface, strategy, scenes, sensor, display, lastDecision = "last_decision",
            suggestion, playing, queued, clip, clipsQueued = "clips_queued", input, screen,
            screenNextChange = "screen_next_change", powerPlanFollowed = "power_plan_followed", mqtt, decoder, gravity,
            next, failed, cache, stream, sync, relockIn = "relock_in", tabletMode = "tablet_mode", smil, health,
            hardware, presenceAgo = "presence_ago", present, volume, muted, brightness, toast, started, uptime,
            storage, update
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(locked, forKey: .locked)
        try c.encode(interface, forKey: .interface)
        try c.encode(strategy, forKey: .strategy)
        try c.encode(scenes, forKey: .scenes)
        try c.encode(sensor, forKey: .sensor)
        try c.encode(display, forKey: .display)
        try c.encode(lastDecision, forKey: .lastDecision)
        try c.encode(suggestion, forKey: .suggestion)
        try c.encode(playing, forKey: .playing)
        try c.encode(queued, forKey: .queued)
        try c.encode(clip, forKey: .clip)
        try c.encode(clipsQueued, forKey: .clipsQueued)
        try c.encode(input, forKey: .input)
        try c.encode(screen, forKey: .screen)
        try c.encode(screenNextChange, forKey: .screenNextChange)
        try c.encode(powerPlanFollowed, forKey: .powerPlanFollowed)
        try c.encode(mqtt, forKey: .mqtt)
        try c.encode(decoder, forKey: .decoder)
        try c.encodeIfPresent(stream, forKey: .stream)
        try c.encode(gravity, forKey: .gravity)
        try c.encode(next, forKey: .next)
        try c.encode(failed, forKey: .failed)
        try c.encode(cache, forKey: .cache)
        try c.encodeIfPresent(sync, forKey: .sync)
        try c.encodeIfPresent(relockIn, forKey: .relockIn)
        try c.encodeIfPresent(tabletMode, forKey: .tabletMode)
        try c.encodeIfPresent(smil, forKey: .smil)
        try c.encodeIfPresent(health, forKey: .health)
        try c.encodeIfPresent(hardware, forKey: .hardware)
        try c.encodeIfPresent(presenceAgo, forKey: .presenceAgo)
        try c.encodeIfPresent(present, forKey: .present)
        try c.encodeIfPresent(volume, forKey: .volume)
        try c.encodeIfPresent(muted, forKey: .muted)
        try c.encodeIfPresent(brightness, forKey: .brightness)
        try c.encodeIfPresent(toast, forKey: .toast)
        try c.encodeIfPresent(started, forKey: .started)
        try c.encodeIfPresent(uptime, forKey: .uptime)
        try c.encode(storage, forKey: .storage)
        try c.encodeIfPresent(update, forKey: .update)
    }
}

/// The version installed, and the newest one published where `[update] source` names it: when it
/// was last asked, and why it could not be.
public struct UpdateStatus: Codable, Sendable, Hashable {
    public var installed: String
    public var latest: String?
    public var checked: String?
    public var problem: String?

    public init(installed: String) { self.installed = installed }
}

/// The room left where Upright keeps files: `cache` (remote items) or `uploads` (the page's).
public struct StorageRoom: Codable, Sendable, Hashable {
    public var place: String
    public var path: String
    public var freeMB: Double
    public var totalMB: Double

    public init(place: String, path: String, freeMB: Double, totalMB: Double) {
        (self.place, self.path, self.freeMB, self.totalMB) = (place, path, freeMB, totalMB)
    }

    enum CodingKeys: String, CodingKey {
        case place, path
        case freeMB = "free_mb", totalMB = "total_mb"
    }
}

/// A SMIL index as it plays: where it came from, and what each zone shows.
public struct PresentationStatus: Codable, Sendable, Hashable {
    /// The playlist entry (a file or a URL) and the file it was read from (a URL's cached copy).
    public var index: String
    public var file: String?
    /// The index's ETag as its server last gave it (a URL's; the shell adds it).
    public var etag: String?
    public var title: String?
    /// How often the index is read again (its `Refresh`), in seconds; `nil` when it says not.
    public var refresh: Double?
    /// Each zone: a region's name (or "root", "audio"), and what it shows now.
    public var zones: [ZonePlaying] = []
    /// What the index leaves out, each with its place and why (`FILE:LINE:COL: warning: …`).
    public var refused: [String] = []
    /// Why nothing of it plays (it cannot be read, or is not downloaded yet); `nil` while it plays.
    public var problem: String?
    /// Why shown items could not all be shown, the latest last (a missing file by its name).
    public var faults: [String] = []

    public init(index: String) { self.index = index }

    enum CodingKeys: String, CodingKey { case index, file, etag, title, refresh, zones, refused, problem, faults }
}

/// What one zone of a SMIL presentation shows: the media (`nil`: nothing), its `xml:id`, and since when.
public struct ZonePlaying: Codable, Sendable, Hashable {
    public var region: String
    public var item: String?
    public var id: String?
    /// When it began to show (ISO 8601, UTC).
    public var since: String?

    public init(region: String, item: String?, id: String?, since: String? = nil) {
        (self.region, self.item, self.id, self.since) = (region, item, id, since)
    }
}

/// A wall's sync group as `ctl status` shows it.
public struct SyncReport: Codable, Sendable, Hashable {
    public var group: String
    /// What the group follows (`clock`).
    public var follow: String
    /// This node's name, the members heard lately (itself included) and the one whose clock is
    /// the group's.
    public var device: String
    public var members: [String] = []
    public var reference: String?
    /// `follow = "leader"`: the node whose schedule the group plays.
    public var leader: String?
    /// How far this node's clock is ahead of the group's (negative: behind), in milliseconds;
    /// `nil` until it is known. And the quickest round trip to the reference it was measured by.
    public var offsetMS: Double?
    public var roundTripMS: Double?
    /// How far the picture was ahead of the schedule (negative: behind) at the last sample, in
    /// milliseconds; the last correction (`speed 0.995`, `seek to 12.3 s`); the speed now.
    public var errorMS: Double?
    public var correction: String?
    public var speed: Double?
    /// How far from its instant the last item started (each waits, paused at its first frame,
    /// for it), in milliseconds; positive: late.
    public var startMS: Double?
    /// Why the playlist cannot be followed, if it cannot.
    public var problem: String?
    /// The broker, as the group's connection sees it.
    public var broker: String = ""
    /// The wall's orientation last read by a node's accelerometer, and whose
    /// (`landscape-left (lobby-wall-1)`); `nil` until one is.
    public var orientation: String?
    /// The group's messages are sealed with its key (`[sync] key_file`).
    public var sealed: Bool?
    /// Messages of the group that changed nothing (unsealed, too old, seen before, malformed,
    /// not the sender's to say), and the last one, in words.
    public var rejected: Int?
    public var lastRejected: String?

    public init(group: String, follow: String, device: String) {
        self.group = group
        self.follow = follow
        self.device = device
    }

    enum CodingKeys: String, CodingKey {
        case group, follow, device, members, reference, leader, offsetMS = "offset_ms", roundTripMS = "round_trip_ms",
            errorMS = "error_ms", correction, speed, startMS = "start_ms", problem, broker, orientation, sealed,
            rejected, lastRejected = "last_rejected"
    }
}

/// A remote playlist item in the cache, as the status reports it.
public struct RemoteItemStatus: Codable, Sendable, Hashable {
    public var url: String
    /// "cached" (the server confirmed it at its last question), "stale" (cached, but the server
    /// fails now: what is cached plays), "downloading" (not cached yet), "missing" (not cached,
    /// and the server fails), or "uncached" (the cache cannot be used: it plays from the network).
    public var state: String
    /// The cached file, its size, and when the server last confirmed it (ISO 8601, UTC).
    public var file: String?
    public var bytes: Int64?
    public var fetched: String?
    /// Why the last question failed, for how many seconds they have failed, and when the next is.
    public var problem: String?
    public var failingFor: Double?
    public var nextTry: Double?

    public init(url: String, state: String) {
        self.url = url
        self.state = state
    }

    enum CodingKeys: String, CodingKey {
        case url, state, file, bytes, fetched, problem, failingFor = "failing_for", nextTry = "next_try"
    }
}

/// An item that could not be played, and why.
public struct ItemFailure: Codable, Sendable, Hashable {
    public var item: String
    public var reason: String

    public init(item: String, reason: String) {
        self.item = item
        self.reason = reason
    }
}

/// The screen, as the power plan has it.
public enum ScreenPower: String, Codable, Sendable, Hashable {
    case on, off
}

/// The input devices as the status reports them.
public struct InputReport: Codable, Sendable, Hashable {
    /// Each open device: its path, name and the bound keys it has.
    public var devices: [String] = []
    /// Each device that cannot be opened now, with the reason (it is tried again).
    public var problems: [String] = []

    public init(devices: [String] = [], problems: [String] = []) {
        self.devices = devices
        self.problems = problems
    }
}

/// A control reply: `ok`, and what happened. A refused command is `ok: false` with the reason in
/// `error`; a command that waits for a rotation under way says `queued`.
public struct ControlReply: Codable, Sendable, Hashable {
    public var ok: Bool
    public var error: String?
    /// The command waits for the rotation under way to end; it is carried out then.
    public var queued: Bool?
    /// What was done, in words, when there is no decision to show it.
    public var message: String?
    /// The decision the command led to.
    public var decision: RotationDecision.Record?
    /// What plays now (`next`, `previous`).
    public var playing: String?
    public var status: SessionStatus?
    /// A screenshot (`screenshot`).
    public var screenshot: Screenshot?
    /// The touch check (`touch-check`).
    public var touchCheck: TouchCheckReport?
    /// The node's health (`health`).
    public var health: HealthReport?

    public init(
        ok: Bool, error: String? = nil, queued: Bool? = nil, message: String? = nil,
        decision: RotationDecision.Record? = nil, playing: String? = nil, status: SessionStatus? = nil
    ) {
        self.ok = ok
        self.error = error
        self.queued = queued
        self.message = message
        self.decision = decision
        self.playing = playing
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case ok, error, queued, message, decision, playing, status, screenshot, touchCheck = "touch_check", health
    }

    /// A refusal, with the reason.
    public static func refused(_ reason: String) -> ControlReply { ControlReply(ok: false, error: reason) }

    /// The reply as one JSON line.
    public var line: String { JSONLine.encode(self) }
}

/// The board's power and heat: the Raspberry Pi firmware's throttling word where it has one,
/// each thermal zone, and what of them is a problem, in words.
public struct HardwareStatus: Codable, Sendable, Hashable {
    /// `get_throttled` as the firmware writes it (`0x50005`); `nil` where there is none.
    public var throttled: String?
    public var temperatures: [Temperature] = []
    /// Under-voltage, throttling or heat now, and what happened since boot, or why a reading failed.
    public var problems: [String] = []
    /// Storage errors the kernel logged since boot (an SD card's, a disk's), and the newest's words.
    public var storageErrors: Int?
    public var storageLast: String?
    /// What of the problems holds now (power, heat, a storage error of the last 10 minutes):
    /// `upright health`'s hardware reasons.
    public var faults: [String] = []

    enum CodingKeys: String, CodingKey {
        case throttled, temperatures, problems, faults
        case storageErrors = "storage_errors", storageLast = "storage_last"
    }

    public struct Temperature: Codable, Sendable, Hashable {
        public var zone: String
        public var celsius: Double
        /// The lowest trip point the kernel acts at.
        public var limit: Double?
        public init(zone: String, celsius: Double, limit: Double?) {
            (self.zone, self.celsius, self.limit) = (zone, celsius, limit)
        }
    }

    public init() {}
}

/// The node's health as `upright health` tells it: "healthy", "unhealthy" or "unknown", and why.
public struct HealthReport: Codable, Sendable, Hashable {
    public var verdict: String
    public var reason: String?
    /// `upright health`'s exit status: 0 healthy, 1 unhealthy, 2 cannot tell.
    public var exit: Int
    /// The pictures sampled in the window judged, and the newest one's age in seconds.
    public var samples: Int
    public var lastSampleAge: Double?
    /// Where the samples came from (mpv's window, its video frame, the compositor's screen).
    public var source: String?

    public init(verdict: String, reason: String?, exit: Int, samples: Int) {
        (self.verdict, self.reason, self.exit, self.samples) = (verdict, reason, exit, samples)
    }

    enum CodingKeys: String, CodingKey {
        case verdict, reason, exit, samples, lastSampleAge = "last_sample_age", source
    }
}

/// A control request as it is sent: one JSON object a line, `{"command": NAME, "argument": …}`.
/// `upright ctl` writes it and the control socket reads it.
public struct ControlRequestLine: Codable, Sendable, Hashable {
    public var command: String?
    public var argument: String?
    public init(command: String, argument: String? = nil) {
        self.command = command
        self.argument = argument
    }

    /// The request as one JSON line.
    public var line: String { JSONLine.encode(self) }
}

/// What `upright ctl screenshot --out FILE` says it wrote.
public struct ScreenshotSaved: Codable, Sendable, Hashable {
    public var ok = true
    public var out: String
    public var bytes: Int
    public var source: String
    public init(out: String, bytes: Int, source: String) {
        (self.out, self.bytes, self.source) = (out, bytes, source)
    }
}

/// A change of the reported device orientation (`upright replay`, the dry run): `why` with
/// `--explain`, `locked` for one the dry run saw while the lock was on.
public struct ChangeRecord: Codable, Sendable, Hashable {
    public var t: Double
    public var orientation: DeviceOrientation
    public var why: String?
    public var locked: Bool?
    public init(t: Double, orientation: DeviceOrientation, why: String? = nil, locked: Bool? = nil) {
        (self.t, self.orientation, self.why, self.locked) = (t, orientation, why, locked)
    }
}

/// A rotation's start or end (the dry run with `--explain`).
public struct TransitionRecord: Codable, Sendable, Hashable {
    public enum Event: String, Codable, Sendable, Hashable {
        case willRotate = "will-rotate"
        case didRotate = "did-rotate"
    }

    public var t: Double
    public var event: Event
    public var from: InterfaceOrientation
    public var to: InterfaceOrientation
    public var strategy: AppliedStrategy
    public var duration: Double

    public init(_ event: Event, _ tr: Transition, at t: Double) {
        (self.t, self.event, from, to, strategy, duration) = (t, event, tr.from, tr.to, tr.strategy, tr.duration)
    }
}

/// A rotate suggestion offered (or withdrawn: `interface` null) while locked (the dry run with `--explain`).
public struct SuggestionRecord: Codable, Sendable, Hashable {
    public var t: Double
    public var event = "suggestion"
    public var interface: InterfaceOrientation?

    public init(t: Double, interface: InterfaceOrientation?) {
        self.t = t
        self.interface = interface
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(t, forKey: .t)
        try c.encode(event, forKey: .event)
        try c.encode(interface, forKey: .interface)  // null when withdrawn
    }

    enum CodingKeys: String, CodingKey { case t, event, interface }
}

/// One line of `upright replay`'s output, read back by the type that wrote it.
public enum ReplayLine: Decodable, Sendable, Hashable {
    case decision(RotationDecision.Record)
    case transition(TransitionRecord)
    case suggestion(SuggestionRecord)
    case change(ChangeRecord)

    private enum Keys: String, CodingKey { case decision, event, orientation }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: Keys.self)
        if keys.contains(.decision) {
            self = .decision(try RotationDecision.Record(from: decoder))
        } else if keys.contains(.orientation) {
            self = .change(try ChangeRecord(from: decoder))
        } else if try keys.decodeIfPresent(String.self, forKey: .event) == "suggestion" {
            self = .suggestion(try SuggestionRecord(from: decoder))
        } else {
            self = .transition(try TransitionRecord(from: decoder))
        }
    }

    /// When it happened (seconds into the trace).
    public var t: Double {
        switch self {
        case .decision(let d): d.t.value
        case .transition(let r): r.t
        case .suggestion(let r): r.t
        case .change(let r): r.t
        }
    }

    public var decision: RotationDecision.Record? { if case .decision(let d) = self { d } else { nil } }
    public var transition: TransitionRecord? { if case .transition(let r) = self { r } else { nil } }
    public var change: ChangeRecord? { if case .change(let r) = self { r } else { nil } }
}

/// `upright sensor`'s lines (`--json`): a reading, the lock, the orientation without a change,
/// and the motion fallback's answer. Numbers are written with the digits the command gives them.
public enum SensorRecord {
    /// One reading, m/s² in the device frame.
    public struct Sample: Codable, Sendable, Hashable {
        public var t, x, y, z: JSONNumberText
        public init(t: Double, x: Double, y: Double, z: Double) {
            (self.t, self.x, self.y, self.z) = (
                JSONNumberText(t.fixed(3)), JSONNumberText(x.fixed(4)), JSONNumberText(y.fixed(4)),
                JSONNumberText(z.fixed(4))
            )
        }
    }

    /// The rotation lock changed, and what changed it.
    public struct Lock: Codable, Sendable, Hashable {
        public var t: JSONNumberText
        public var locked: Bool
        public var source: String
        public init(t: Double, locked: Bool, source: String) {
            (self.t, self.locked, self.source) = (JSONNumberText(t.fixed(3)), locked, source)
        }
    }

    /// The orientation reads something with no change of the classifier's (unknown: locked, no readings).
    public struct Orientation: Codable, Sendable, Hashable {
        public var t: JSONNumberText
        public var orientation: DeviceOrientation
        public init(t: Double, orientation: DeviceOrientation) {
            (self.t, self.orientation) = (JSONNumberText(t.fixed(3)), orientation)
        }
    }

    /// The motion fallback's burst: how the device is held, and how sure it is.
    public struct Motion: Codable, Sendable, Hashable {
        public var orientation: DeviceOrientation
        public var confidence: JSONNumberText
        public var samples: Int
        public var source: String
        public var elapsed: JSONNumberText
        public init(orientation: DeviceOrientation, confidence: Double, samples: Int, source: String, elapsed: Double) {
            (self.orientation, self.samples, self.source) = (orientation, samples, source)
            (self.confidence, self.elapsed) = (JSONNumberText(confidence.fixed(3)), JSONNumberText(elapsed.fixed(3)))
        }
    }
}

/// A decision as a record (the play log's and the dry run's lines, `last_decision` in the status):
/// `t` written as given, the cause included when asked for.
public struct DecisionRecord: Codable, Sendable, Hashable {
    public var t: JSONNumberText
    public var decision: RotationDecision.Kind
    public var interface: InterfaceOrientation
    public var strategy: AppliedStrategy
    public var scene: String
    public var reason: DecisionReason
    public var cause: String?
}

extension RotationDecision {
    /// The decision's record type.
    public typealias Record = DecisionRecord

    /// The record of this decision; `time` is how `t` is written (the dry run writes it as it is,
    /// the play log with three decimals).
    public func record(time: String, cause withCause: Bool = true) -> Record {
        Record(
            t: JSONNumberText(time), decision: kind, interface: interface, strategy: strategy, scene: scene,
            reason: reason, cause: withCause ? cause : nil)
    }

    /// The decision as one JSON line, the format of `upright replay --events` and of `upright
    /// play`'s log.
    public func jsonLine(time: String, cause withCause: Bool = true) -> String {
        JSONLine.encode(record(time: time, cause: withCause))
    }

    /// `t` with three decimals (`12.300`), as the play log and the control replies write it.
    public var millisecondsText: String { t.fixed(3) }
}

/// The program's version, as `upright --version` and Home Assistant's device show it.
public enum ProgramVersion {
    public static let text = "0.1.0"
}

/// The screen's state as MQTT publishes it (retained), for Home Assistant's sensors.
public struct MQTTState: Codable, Sendable, Hashable {
    public var device: DeviceOrientation
    public var interface: InterfaceOrientation
    public var locked: Bool
    public var scene: String
    /// What plays, whole (a path or a URL of any length: an attribute in Home Assistant).
    public var playing: String?
    public var sensor: String
    public var clip: String?
    /// What plays as a state can hold it: its last path component, shortened
    /// (``HomeAssistantDiscovery/shortened(_:)``).
    public var title: String?
    /// Whether the power plan is followed; `nil` without a plan.
    public var powerPlan: Bool?
    /// The last command from MQTT that was refused or could not be read, with the reason, shortened.
    public var refused: String?
    /// When it was refused (ISO 8601, UTC).
    public var refusedAt: String?
    /// The remote items by state ("2 cached, 1 stale"); `nil` without any.
    public var remote: String?
    /// The first remote item that fails, and why, shortened; `nil` while none does.
    public var remoteProblem: String?
    /// A wall's node: its clock's offset to the group's, in milliseconds to the nearest 5 (the
    /// state is sent when it changes); `nil` without a group.
    public var syncOffsetMS: Double?
    /// What the tablet-mode switch says ("tablet", "laptop: auto-rotation off"); `nil` without one.
    public var tabletMode: String?
    /// The SMIL index playing and what each zone shows ("lobby.smil: main a.mp4, side logo.png"),
    /// shortened; `nil` without one.
    public var smil: String?
    /// Why the index does not play, or the first of what it leaves out, shortened; `nil` with neither.
    public var smilProblem: String?
    /// Whether a person was there within `[screen] idle_off`; `nil` without it.
    public var present: Bool?
    /// `upright health`'s verdict ("healthy", "unhealthy", "cannot tell") and its reason, shortened.
    public var health: String?
    public var healthReason: String?
    /// The hottest thermal zone's temperature (°C), the board's first problem (power, heat, the
    /// kernel's storage errors), shortened, and the storage errors since boot; `nil` without.
    public var temperature: Double?
    public var hardware: String?
    public var storageErrors: Int?
    /// The sound (volume 0–100, muted), the toast on screen, when the process started (ISO 8601),
    /// and the free room of the cache's file system (MB); `nil` when the status has none.
    public var volume: Int?
    public var muted: Bool?
    public var brightness: Int?
    public var toast: String?
    public var started: String?
    public var cacheFreeMB: Double?
    /// The version installed, and the newest published (the installed one when none is known).
    public var version: String?
    public var latestVersion: String?

    /// The kiosk's entities from the status.
    public mutating func describe(_ s: SessionStatus) {
        (volume, muted, brightness, toast, started) = (s.volume, s.muted, s.brightness, s.toast, s.started)
        cacheFreeMB = s.storage.first { $0.place == "cache" }?.freeMB
        (version, latestVersion) = (s.update?.installed, s.update.map { $0.latest ?? $0.installed })
        describe(s.hardware)
    }

    /// `temperature`, `hardware` and `storageErrors` from the board's status.
    public mutating func describe(_ h: HardwareStatus?) {
        temperature = h?.temperatures.map(\.celsius).max().map { $0.rounded() }
        hardware = h?.problems.first.map { HomeAssistantDiscovery.shortened($0) }
        storageErrors = h?.storageErrors
    }

    /// `smil` and `smilProblem` from the index's status.
    public mutating func describe(_ p: PresentationStatus?) {
        guard let p else { return }
        let zones = p.zones.map { "\($0.region) " + Self.lastComponent(of: $0.item ?? "-") }
        smil = HomeAssistantDiscovery.shortened(
            Self.lastComponent(of: p.index) + (zones.isEmpty ? "" : ": " + zones.joined(separator: ", ")))
        smilProblem = (p.problem ?? p.refused.first ?? p.faults.last).map { HomeAssistantDiscovery.shortened($0) }
    }

    public init(
        device: DeviceOrientation, interface: InterfaceOrientation, locked: Bool, scene: String, playing: String?,
        sensor: String, clip: String?, powerPlan: Bool? = nil, refused: String? = nil, refusedAt: String? = nil,
        remote: [RemoteItemStatus] = []
    ) {
        (self.device, self.interface, self.locked, self.scene) = (device, interface, locked, scene)
        (self.playing, self.sensor, self.clip) = (playing, sensor, clip)
        title = playing.map { HomeAssistantDiscovery.shortened(Self.lastComponent(of: $0)) }
        (self.refused, self.refusedAt) = (refused.map { HomeAssistantDiscovery.shortened($0) }, refusedAt)
        self.powerPlan = powerPlan
        if !remote.isEmpty {
            let states = ["cached", "stale", "downloading", "missing", "uncached"]
            self.remote = states.compactMap { state in
                let n = remote.filter { $0.state == state }.count
                return n == 0 ? nil : "\(n) \(state)"
            }.joined(separator: ", ")
            remoteProblem = remote.first { $0.problem != nil }.map {
                HomeAssistantDiscovery.shortened("\($0.url): \($0.problem ?? "")")
            }
        }
    }

    /// A path's or a URL's last component (the whole text when it has none).
    static func lastComponent(of text: String) -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let slash = trimmed.lastIndex(of: "/"), trimmed.index(after: slash) < trimmed.endIndex else {
            return text
        }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    enum CodingKeys: String, CodingKey {
        case device, interface, locked, scene, playing, sensor, clip, title
        case powerPlan = "power_plan"
        case refused
        case refusedAt = "refused_at"
        case remote
        case remoteProblem = "remote_problem"
        case syncOffsetMS = "sync_offset_ms"
        case tabletMode = "tablet_mode"
        case smil
        case smilProblem = "smil_problem"
        case health, present
        case healthReason = "health_reason"
        case temperature, hardware
        case storageErrors = "storage_errors"
        case volume, muted, brightness, toast, started, version
        case cacheFreeMB = "cache_free_mb", latestVersion = "latest_version"
    }
}

/// One Home Assistant discovery message (MQTT discovery's `config`): an entity of the screen's
/// device, with the topics it reads and writes.
public struct HomeAssistantDiscovery: Codable, Sendable, Hashable {
    public struct Device: Codable, Sendable, Hashable {
        public var identifiers: [String]
        public var name: String
        public var manufacturer: String
        public var model: String
        public var swVersion: String?
        /// The operator's page, when it is on: Home Assistant links the device to it.
        public var configurationURL: String?
        public init(
            identifiers: [String], name: String, manufacturer: String, model: String, swVersion: String? = nil,
            configurationURL: String? = nil
        ) {
            (self.identifiers, self.name, self.manufacturer, self.model) = (identifiers, name, manufacturer, model)
            self.swVersion = swVersion
            self.configurationURL = configurationURL
        }

        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case swVersion = "sw_version"
            case configurationURL = "configuration_url"
        }
    }

    /// Longest state Home Assistant keeps: a longer one leaves the entity `unknown`.
    public static let stateLimit = 255

    /// A name as Home Assistant's discovery takes it in a topic and an id: letters, digits, `_`
    /// and `-` (any other character and Home Assistant drops the entity without a word). `-`
    /// becomes `_` (as ids were always written); any other character becomes `_`, and then eight
    /// hexadecimal digits of the name's hash follow, so that two names that map alike (`lobby.1`,
    /// `lobby_1`) stay two devices. The same name gives the same id on every start.
    public static func id(_ name: String) -> String {
        var out = ""
        var mapped = false
        for scalar in name.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": out.unicodeScalars.append(scalar)
            case "-": out += "_"
            default:
                out += "_"
                mapped = true
            }
        }
        guard mapped || out.isEmpty else { return out }
        var hash: UInt32 = 2_166_136_261  // FNV-1a, 32 bits
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return out + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `text` as a state Home Assistant keeps: at most ``stateLimit`` characters (Unicode scalars,
    /// as Home Assistant counts them), a cut one ending in `…`.
    public static func shortened(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > stateLimit else { return text }
        var out = String.UnicodeScalarView(scalars.prefix(stateLimit - 1))
        out.append("…")
        return String(out)
    }

    public var name: String
    public var commandTopic: String?
    public var stateTopic: String?
    public var valueTemplate: String?
    public var options: [String]?
    public var payloadPress: String?
    /// A template that makes the entity's attributes (a JSON object) from the state topic's message.
    public var jsonAttributesTopic: String?
    public var jsonAttributesTemplate: String?
    /// An `image` entity's topic and its pictures' type.
    public var imageTopic: String?
    public var contentType: String?
    public var icon: String?
    /// A sensor's unit (`°C`).
    public var unitOfMeasurement: String?
    /// A number's range and step, its `mode` (`slider`, `box`; a text's `text`), a text's
    /// longest length (`max`), a switch's payloads.
    public var min: Double?
    public var max: Double?
    public var step: Double?
    public var mode: String?
    public var payloadOn: String?
    public var payloadOff: String?
    /// A sensor's class of state (`measurement`).
    public var stateClass: String?
    /// What Home Assistant shows it as (`problem` for a binary sensor that is on when something is wrong).
    public var deviceClass: String?
    public var uniqueID = ""
    public var objectID = ""
    public var device: Device?
    public var availabilityTopic = ""

    public init(
        name: String, commandTopic: String? = nil, stateTopic: String? = nil, valueTemplate: String? = nil,
        options: [String]? = nil, payloadPress: String? = nil, jsonAttributes: (topic: String, template: String)? = nil,
        icon: String? = nil
    ) {
        (self.name, self.commandTopic, self.stateTopic) = (name, commandTopic, stateTopic)
        (self.valueTemplate, self.options, self.payloadPress) = (valueTemplate, options, payloadPress)
        (jsonAttributesTopic, jsonAttributesTemplate, self.icon) = (
            jsonAttributes?.topic, jsonAttributes?.template, icon
        )
    }

    enum CodingKeys: String, CodingKey {
        case name, options, device
        case commandTopic = "command_topic", stateTopic = "state_topic", valueTemplate = "value_template"
        case payloadPress = "payload_press", uniqueID = "unique_id", objectID = "object_id"
        case availabilityTopic = "availability_topic"
        case jsonAttributesTopic = "json_attributes_topic", jsonAttributesTemplate = "json_attributes_template"
        case imageTopic = "image_topic", contentType = "content_type", icon, deviceClass = "device_class"
        case unitOfMeasurement = "unit_of_measurement"
        case min, max, step, mode
        case payloadOn = "payload_on", payloadOff = "payload_off", stateClass = "state_class"
    }
}
