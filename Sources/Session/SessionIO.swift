public import OrientationCore
public import Playback

/// Names a request that waits for a reply (a control-socket command, a reload).
public typealias RequestID = Int

/// Where a command came from.
public enum Origin: String, Sendable, Hashable, Codable {
    /// A key bound in mpv's window.
    case hotkey
    /// A key of an input device (evdev): a button, a keypad, a remote.
    case button
    /// A tap or click in mpv's window (`MBTN_LEFT_DBL` …).
    case touch
    /// A command published on the MQTT broker (Home Assistant).
    case mqtt
    /// `upright ctl`, over the control socket.
    case control
    /// The dry run's events file.
    case events
    /// The rotation-lock switch.
    case lockSwitch = "switch"
    /// A script of the program's own (the demo).
    case script
}

/// Everything the session reacts to. Time comes with each input (``SessionCore/handle(_:at:)``).
public enum SessionInput: Sendable, Hashable {
    /// The sensor's device orientation changed (it reads `unknown` while locked).
    case device(DeviceOrientation)
    /// The sensor's health, in words, for the status.
    case sensorStatus(String)
    /// The rotation-lock switch moved.
    case lockSwitch(Bool)
    /// The motion fallback's answer: how the device is physically held, even while locked.
    case motion(DeviceOrientation)
    /// An action asked for by a person or a program; `request` waits for the reply.
    case command(Action, from: Origin, request: RequestID? = nil)
    /// `upright ctl status`.
    case status(request: RequestID)
    /// A turn of the output was carried out (`failure` says why not), and the display's state now.
    case displayTurned(DisplayReport, failure: String?)
    /// The display backend was asked again after a fault: what it can do now.
    case displayProbed(DisplayAbilities, DisplayReport)
    /// A file started playing; `title` is what the status line shows for it.
    case playing(item: String, title: String)
    /// A file could not be played (the playlist goes on).
    case fileFailed(path: String, reason: String)
    /// The clip playing ended (played through, failed, or skipped); the loop plays again.
    case clipEnded
    /// The item playing has this shape.
    case content(ContentShape)
    /// The local weekday (1 Monday … 7 Sunday) and minute after midnight, each minute: the screen's
    /// power plan follows it.
    case localTime(weekday: Int, minute: Int)
    /// The MQTT connection's state, in words, for the status.
    case mqttState(String)
    /// The input devices open now, and those that cannot be opened, in words (for the status).
    case inputDevices([String], problems: [String])
    /// The wall clock's minute changed: the status line's text for it.
    case clock(String)
    /// A new configuration (SIGHUP): the policy's part of it.
    case reload(PolicyConfiguration, request: RequestID? = nil)
    /// Time passed: what is due by now (a transition's end, a display probe).
    case tick
}

/// What the session asks its shell to do, in order.
public enum SessionEffect: Sendable, Hashable {
    /// A decision, a transition's start or end, a suggestion: logged (and shown by the dry run).
    case policy(PolicyOutput)
    case player(PlayerEffect)
    /// Turn the output so that this interface orientation shows upright; the result comes back as
    /// ``SessionInput/displayTurned(_:failure:)``.
    case turnOutput(InterfaceOrientation)
    /// Ask the display backend again; the answer comes back as ``SessionInput/displayProbed(_:_:)``.
    case probeDisplay
    /// Pause the sensor (locked) or resume it.
    case sensorLock(Bool)
    /// Measure how the device is held; the answer comes back as ``SessionInput/motion(_:)``.
    case measureMotion
    /// Step through the playlist; the shell replies to `request` with what plays then.
    case playlist(PlaylistStep, request: RequestID?)
    case reply(RequestID, ControlReply)
    /// A line for the status log (standard error).
    case status(String)
    /// Switch the screen on or off (the power plan).
    case screenPower(Bool)
}

/// What the player is asked to do.
public enum PlayerEffect: Sendable, Hashable {
    /// Show the interface orientation, carried out by `strategy`, in `layout`.
    case apply(InterfaceOrientation, AppliedStrategy, PlayerLayout)
    case layout(PlayerLayout)
    case overlay(OverlayChange)
    /// Play this file or URL once, then go back to the loop where it was.
    case playClip(String)
    /// Pause playback (the screen is off) or resume it.
    case pause(Bool)
}

/// One change of what the overlays show.
public enum OverlayChange: Sendable, Hashable {
    case locked(Bool)
    case suggestion(InterfaceOrientation?)
    case title(String)
    case clock(String)
    /// Hidden during a transition, shown again after it.
    case hidden(Bool)
}
