public import OrientationCore
public import Wire

/// What the touch check is asked (the control command `touch-check`).
public enum TouchCheckCommand: Sendable, Hashable {
    /// Targets shown anew, in the orientation shown now; the taps before are forgotten.
    case start
    /// The check ends where it is; its report stays.
    case stop
}

/// A touch check (``PlaybackCore/touchCheckReport``): its taps, the layout its targets were
/// shown in, and when it ends by itself.
struct TouchCheckRun: Sendable {
    var calibration: TouchCalibration
    var layout: OverlayLayout
    var running = true
    var state: String
    /// What the last tap came to, in words (shown under the next target).
    var last: String?
    /// When it ends with no tap (running), or its result leaves the screen (ended); `nil`: gone.
    var until: Double?
}

/// The touch check: targets at the picture's corners and centre, drawn as the viewer sees the
/// picture, and each tap that reaches mpv's window (its `mouse-pos`, in the window's pixels)
/// turned back by the picture's own turn in the `surface` strategy and judged
/// (``TouchCalibration``). While it runs, a tap is bound to it instead of any action.
extension PlaybackCore {
    /// A check with no tap for this long ends by itself (a person who walked away).
    static let touchCheckIdle = 60.0
    /// How long an ended check's result stays on the screen.
    static let touchCheckResultShown = 10.0
    /// The button a tap is (mpv's name): bound to the check while it runs.
    static let touchButton = "MBTN_LEFT"
    /// The script message the bound tap sends; the player reads `mouse-pos` when it comes.
    public static let touchMessage = "upright-touch"

    /// Where the check stands, for the control reply; `nil` before the first.
    public var touchCheckReport: TouchCheckReport? {
        guard let run = touchCheck else { return nil }
        let c = run.calibration
        return TouchCheckReport(
            running: run.running, state: run.state, targets: TouchCalibration.targets.map { [$0.x, $0.y] },
            taps: c.taps.map {
                TouchCheckReport.Tap(
                    target: [$0.target.x, $0.target.y], tap: [$0.tap.x, $0.tap.y], dx: $0.dx, dy: $0.dy, hit: $0.hit)
            },
            width: Int(c.width), height: Int(c.height), angle: run.layout.angle)
    }

    mutating func touchCheck(_ command: TouchCheckCommand, at now: Double) -> [PlaybackEffect] {
        switch command {
        case .start: return startTouchCheck(note: nil, at: now)
        case .stop:
            guard let run = touchCheck, run.running else { return [] }
            return endTouchCheck("stopped after \(run.calibration.taps.count) of \(Self.targetCount) taps", at: now)
        }
    }

    /// Targets shown anew in the layout of now, the tap bound to them; `note` under the first.
    private mutating func startTouchCheck(note: String?, at now: Double) -> [PlaybackEffect] {
        let layout = overlayLayout
        let viewer = layout.viewerSize
        touchCheck = TouchCheckRun(
            calibration: TouchCalibration(width: Double(viewer.width), height: Double(viewer.height)),
            layout: layout, state: Self.waiting(1), last: note, until: now + Self.touchCheckIdle)
        return [bindTouch(true)] + drawOverlays()
    }

    /// A tap at the window's point (`x`, `y`) in pixels.
    mutating func touched(x: Double, y: Double, at now: Double) -> [PlaybackEffect] {
        guard var run = touchCheck, run.running else { return [] }
        let layout = overlayLayout
        guard layout == run.layout else {
            // The picture turned (or the window changed) since the targets were shown.
            return startTouchCheck(note: "the picture turned: the check starts again", at: now)
        }
        let viewer = layout.toViewer(x: x, y: y), size = layout.viewerSize
        guard let tap = run.calibration.record((viewer.x / Double(size.width), viewer.y / Double(size.height))) else {
            return []
        }
        run.last = Self.tapWords(dx: tap.dx, dy: tap.dy, hit: tap.hit)
        run.until = now + Self.touchCheckIdle
        if run.calibration.next != nil { run.state = Self.waiting(run.calibration.taps.count + 1) }
        touchCheck = run
        guard run.calibration.next == nil else { return drawOverlays() }
        let hits = run.calibration.taps.filter(\.hit).count
        return endTouchCheck("done: \(hits) of \(Self.targetCount) hits", at: now)
    }

    /// The check's time ran out, or its result has been shown long enough.
    mutating func touchCheckDue(at now: Double) -> [PlaybackEffect] {
        guard let run = touchCheck, let until = run.until, until <= now else { return [] }
        if run.running { return endTouchCheck("ended: no tap for \(Int(Self.touchCheckIdle)) s", at: now) }
        touchCheck?.until = nil
        return drawOverlays()
    }

    /// mpv started again: a check under way keeps its tap.
    var touchRebinding: [PlaybackEffect] { touchCheck?.running == true ? [bindTouch(true)] : [] }

    private mutating func endTouchCheck(_ state: String, at now: Double) -> [PlaybackEffect] {
        touchCheck?.running = false
        touchCheck?.state = state
        touchCheck?.until = now + Self.touchCheckResultShown
        return [bindTouch(false)] + drawOverlays()
    }

    /// The tap bound to the check, or given back to its action (or to nothing).
    private func bindTouch(_ toCheck: Bool) -> PlaybackEffect {
        let own = settings.hotkeys.first { $0.value.contains { $0.uppercased() == Self.touchButton } }?.key
        let binding =
            toCheck ? "script-message \(Self.touchMessage)" : own.map { PlayerSettings.binding(Self.touchButton, $0) }
        return .mpv(.command(["keybind", Self.touchButton, binding ?? "ignore"]))
    }

    /// The overlay of the check: the target with what the last tap came to, or the result.
    func touchCheckText(_ l: OverlayLayout, size: Int) -> String? {
        guard let run = touchCheck, run.until != nil else { return nil }
        let viewer = l.viewerSize
        let (w, h) = (Double(viewer.width), Double(viewer.height))
        let lines = ["Touch check: " + run.state, run.last].compactMap { $0 }.joined(separator: "\n")
        guard run.running, let target = run.calibration.next else {
            return l.text(lines, x: w / 2, y: h / 2, size: size)
        }
        let (x, y) = (target.x * w, target.y * h)
        let cross = l.text("+", x: x, y: y, size: size * 3)
        // The words at the centre, or below it while the centre is the target.
        return cross + "\n" + l.text(lines, x: w / 2, y: target == (0.5, 0.5) ? h * 0.7 : h / 2, size: size)
    }

    static var targetCount: Int { TouchCalibration.targets.count }

    static func waiting(_ n: Int) -> String { "tap the cross, target \(n) of \(targetCount)" }

    /// "hit, 3 px off"; "missed by 120 px: 110 px right, 48 px up".
    public static func tapWords(dx: Double, dy: Double, hit: Bool) -> String {
        let off = Int((dx * dx + dy * dy).squareRoot().rounded())
        if hit { return "hit, \(off) px off" }
        let across = "\(Int(abs(dx).rounded())) px \(dx < 0 ? "left" : "right")"
        let down = "\(Int(abs(dy).rounded())) px \(dy < 0 ? "up" : "down")"
        return "missed by \(off) px: \(across), \(down)"
    }
}

extension PlayerSettings {
    /// mpv's binding of `key` to `action`: a script message the player reads back as the action
    /// (`upright-tap` for a mouse button or a tap, `upright-hotkey` for a key).
    public static func binding(_ key: String, _ action: Action) -> String {
        let tap = key.uppercased().hasPrefix("MBTN") || key.uppercased().hasPrefix("MOUSE_BTN")
        return (["script-message", tap ? "upright-tap" : "upright-hotkey"] + action.words).joined(separator: " ")
    }
}
