public import OrientationCore
public import Playback
public import Wire

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
    /// The wall's sync group: a clip asked of one of its screens, played by every screen.
    case group
    /// The lock coming back by itself (`[lock] relock_after`).
    case relock
}

/// Everything the session reacts to. Time comes with each input (``SessionCore/handle(_:at:)``).
public enum SessionInput: Sendable, Hashable {
    /// The sensor's device orientation changed (it reads `unknown` while locked).
    case device(DeviceOrientation)
    /// The sensor's health, in words, for the status.
    case sensorStatus(String)
    /// The rotation-lock switch moved (or its key was pressed: a toggle).
    case lockSwitch(LockSwitch)
    /// The tablet-mode switch says tablet (true) or laptop (false).
    case tabletMode(Bool)
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
    /// A new configuration (SIGHUP): the policy's part of it, and the playlist when it is the
    /// configuration's (not the command line's).
    /// `relockAfter` is `[lock] relock_after`'s seconds.
    case reload(PolicyConfiguration, playlist: [String]? = nil, relockAfter: Double? = nil, request: RequestID? = nil)
    /// Whether the display answers: at the start, while the session waits for it, and after mpv was lost.
    case displayChecked(DisplayState)
    /// The outputs may have changed: plugged, enabled, turned by someone else.
    case outputsChanged
    /// mpv ended on its own: its window was closed, or the compositor went away under it.
    case playerLost
    /// The player cannot do its job (its stream stalled too often): the session ends, failing.
    case playerGaveUp(String)
    /// `upright ctl screenshot`.
    case screenshot(request: RequestID)
    /// A message line over the video (`nil` clears it).
    case message(String?)
    /// What Upright ends with has ended (why): the compositor that started it, or its login
    /// session (greetd's, closed when its compositor died). Nothing of it may stay.
    case sessionEnded(String)
    /// The session is asked to end (a signal, the duration, mpv's events ending).
    case stop
    /// Time passed: what is due by now (a transition's end, a display probe).
    case tick
    /// This screen's place in a wall's group, when it changes (`nil`: not in one).
    case wall(WallRole?)
}

/// A screen's place in a wall's group: a step or a clip is the whole wall's, asked of its leader.
public enum WallRole: Sendable, Hashable {
    /// It may step and play clips for the wall (the group follows the clock, or it leads).
    case member
    /// It follows this screen, the wall's leader.
    case follows(String)
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
    /// A clip for the whole wall: every screen of the group plays it from one instant (this one's
    /// own copy comes back as ``SessionInput/command(_:from:request:)`` from ``Origin/group``).
    case shareClip(String, request: RequestID?)
    /// A named notification to the SMIL index playing; the shell replies whether it waits for one.
    case notify(String, request: RequestID?)
    /// The screen's brightness (0–100); the shell replies whether it could be set.
    case brightness(Int, request: RequestID?)
    case reply(RequestID, ControlReply)
    /// A line for the status log (standard error).
    case status(String)
    /// Switch the screen on or off (the power plan).
    case screenPower(Bool)
    /// A warning for the log and the service manager's status line.
    case warning(String)
    /// Is the display there? The answer comes back as ``SessionInput/displayChecked(_:)``.
    case checkDisplay
    /// Ask whether the display is there twice a second, until it is (`false`: stop asking).
    case watchDisplay(Bool)
    /// Find the display backend (again, after the compositor came back: `redetect`); the answer
    /// comes back as ``SessionInput/displayProbed(_:_:)``.
    case startDisplay(redetect: Bool)
    /// The outputs changed: turn back what was turned behind the session's back, and say what the
    /// display can do now (``SessionInput/displayProbed(_:_:)``).
    case reassertDisplay
    /// Hear of output changes from the display backend (`false`: its compositor is gone).
    case watchOutputs(Bool)
    /// Take a screenshot and reply to the request with it.
    case screenshot(RequestID)
    /// The session ends: with `failure`, it could not do its job (the process exits non-zero).
    case end(failure: String?)
}

/// What the rotation-lock switch did.
public enum LockSwitch: Sendable, Hashable {
    case on
    case off
    /// A lock key: the lock the other way.
    case toggle
}

/// Whether the display answers, as the shell found it.
public enum DisplayState: Sendable, Hashable {
    case present
    /// The compositor named does not answer (yet, or any more): the video waits for it.
    case waiting(String)
    /// No display at all: mpv plays where it can, and the session ends after the wait unless one appears.
    case missing(String)
}

/// What the player is asked to do.
public enum PlayerEffect: Sendable, Hashable {
    /// Show the interface orientation, carried out by `strategy`, in `layout`, on an output that
    /// shows `panel` upright meanwhile (the surface strategy turns the picture by the rest).
    case apply(InterfaceOrientation, AppliedStrategy, PlayerLayout, panel: InterfaceOrientation = .portrait)
    case layout(PlayerLayout)
    case overlay(OverlayChange)
    /// Play this file or URL once, then go back to the loop where it was.
    case playClip(String)
    /// Pause playback (the screen is off) or resume it.
    case pause(Bool)
    /// Load the playlist: the display answers.
    case start
    /// A new mpv, after the old one ended on its own.
    case restart
    /// The display went away: nothing more is sent to this mpv (it closes, or lives on failing
    /// each item); what is asked meanwhile is kept for the new one.
    case leaveAlone
    /// The playlist of a new configuration.
    case playlist([String])
    /// The sound's volume (0–100), and the sound off or on again.
    case volume(Int)
    case mute(Bool)
}

/// One change of what the overlays show.
public enum OverlayChange: Sendable, Hashable {
    case locked(Bool)
    case suggestion(InterfaceOrientation?)
    case title(String)
    case clock(String)
    /// Hidden during a transition, shown again after it.
    case hidden(Bool)
    /// A message line (`nil` clears it).
    case message(String?)
}
