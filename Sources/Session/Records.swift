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
        case backend, turnsOutputs = "turns_outputs", reason, output, transform, problem, desktop
        case others = "others_turning_outputs"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(backend, forKey: .backend)
        try c.encode(turnsOutputs, forKey: .turnsOutputs)
        try c.encode(reason, forKey: .reason)
        try c.encode(output, forKey: .output)
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
    /// The MQTT connection: "connected to …", or why not and that it is retried.
    public var mqtt: String?

    enum CodingKeys: String, CodingKey {
        case device, locked, interface, strategy, scenes, sensor, display, lastDecision = "last_decision",
            suggestion, playing, queued, clip, clipsQueued = "clips_queued", input, screen,
            screenNextChange = "screen_next_change", mqtt
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
        try c.encode(mqtt, forKey: .mqtt)
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

    /// A refusal, with the reason.
    public static func refused(_ reason: String) -> ControlReply { ControlReply(ok: false, error: reason) }

    /// The reply as one JSON line.
    public var line: String { JSONLine.encode(self) }
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
