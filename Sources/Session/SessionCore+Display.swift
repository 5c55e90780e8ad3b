import OrientationCore
import Wire

/// The session's rules for its display and its player:
/// - at the start the video plays once the display answers; a compositor named but not answering
///   yet is waited for, and after ``SessionCore/displayWait`` seconds the session fails (the process
///   exits non-zero, for the service manager to start it again);
/// - with no display at all, mpv plays where it can, and the session fails after the wait unless
///   a display appears;
/// - mpv that ends on its own starts again while the display is there (asked twice, a second
///   apart: mpv hears its compositor go before the compositor's socket goes); with the display
///   gone (its compositor died) the output cannot be turned meanwhile, and the video starts again
///   when the display answers, the display found anew; three losses in a minute with the display
///   there and the session fails;
/// - while playing, the display is asked whether it answers every ``SessionCore/presenceInterval``
///   and when an item fails: mpv may live on when its compositor goes (idle, or failing every item
///   as its video output cannot open: the display's failure, not the items'). The same wait, and
///   a new mpv when the display answers;
/// - outputs that change while playing are looked at again (turns behind the session's back undone).
extension SessionCore {
    /// A turn of the output was carried out, or failed: then only the surface turns, and the
    /// display is asked again every ``SessionCore/probeInterval``.
    mutating func displayTurned(_ report: DisplayReport, failure: String?, at now: Double) -> [SessionEffect] {
        displayReport = report
        guard let failure else { return [] }
        display.canRotateOutput = false
        lastProbe = now
        return [.status("display: \(failure); only the video surface turns until it answers again")]
            + translate(policy.handle(.display(display), at: now))
    }

    /// What the display can do now (after a probe, its start, or output changes).
    mutating func displayProbed(_ abilities: DisplayAbilities, _ report: DisplayReport, at now: Double)
        -> [SessionEffect]
    {
        displayReport = report
        defer { afterProbe = [] }
        guard abilities != display else { return afterProbe }
        display = abilities
        let line =
            abilities.canRotateOutput
            ? "display: \(report.backend) turns outputs again; the interface may turn with the output"
            : "display: \(report.backend) cannot turn outputs now (\(report.problem ?? "no output")); "
                + "only the video surface turns"
        return [.status(line)] + translate(policy.handle(.display(abilities), at: now)) + afterProbe
    }

    mutating func displayChecked(_ state: DisplayState, at now: Double) -> [SessionEffect] {
        switch asking {
        case .mpvEnded?:
            asking = nil
            if case .waiting(let why) = state {
                lossConfirmAt = nil
                return lost(why, at: now)
            }
            // mpv hears its compositor go (its window closed) before the compositor's socket
            // goes: asked again a second later before it counts as mpv's own end.
            guard lossConfirmAt != nil else {
                lossConfirmAt = now + 1
                return []
            }
            lossConfirmAt = nil
            return mpvEnded(at: now)
        case .presence? where phase == .playing:
            asking = nil
            guard case .waiting(let why) = state else { return [] }
            return lost(why, at: now)
        default: break
        }
        switch (phase, state) {
        case (.starting, .present):
            phase = .playing
            return [.player(.start), .watchOutputs(true)]
        case (.starting, .missing(let why)):
            phase = .playing
            wait(why, at: now)
            return [
                .warning("\(why); exiting in \(waitText) unless one appears"), .player(.start), .watchDisplay(true),
            ]
        case (.starting, .waiting(let why)):
            phase = .waiting(lost: false)
            wait(why, at: now)
            displayReport.reason = why
            displayReport.problem = why
            return [.warning("display: \(why); the video starts when it answers"), .watchDisplay(true)]
        case (.waiting(let lost), .present):
            // Found late, or back after it went away (then mpv starts again, as it was).
            phase = .playing
            waitingSince = nil
            afterProbe = [.player(lost ? .restart : .start), .watchOutputs(true)]
            return [.watchDisplay(false), .startDisplay(redetect: lost)]
        case (.playing, .present):
            waitingSince = nil
            return [.watchDisplay(false)]
        case (_, .waiting(let why)), (_, .missing(let why)):
            waitingWhy = why
            return []
        }
    }

    /// mpv ended on its own: is the display still there?
    mutating func playerLost(at now: Double) -> [SessionEffect] {
        // Waiting for the display, mpv's end is expected (it was left alone).
        guard phase == .playing else { return [] }
        asking = .mpvEnded
        return [.checkDisplay]
    }

    /// mpv ended with its display there: its own failure, started again; three in a minute end
    /// the session. (Ended with its compositor, it is the display's: the wait rules that.)
    private mutating func mpvEnded(at now: Double) -> [SessionEffect] {
        losses = losses.filter { now - $0 < 60 } + [now]
        guard losses.count < 3 else {
            return [.end(failure: "mpv ended on its own 3 times within a minute, its display there each time")]
        }
        return [.warning("mpv ended on its own (its window was closed?); starting it again"), .player(.restart)]
    }

    /// The second look after mpv ended with its display there.
    mutating func confirmLoss(at now: Double) -> [SessionEffect] {
        guard let due = lossConfirmAt, due <= now, asking != .mpvEnded else { return [] }
        asking = .mpvEnded
        return [.checkDisplay]
    }

    /// Is the display still there? (One look at a time, and only while playing.)
    mutating func lookAtTheDisplay() -> [SessionEffect] {
        guard phase == .playing, asking == nil else { return [] }
        asking = .presence
        return [.checkDisplay]
    }

    /// When the next look at the display is due while playing.
    var presenceDue: Double? {
        guard phase == .playing, let interval = presenceInterval else { return nil }
        return lastPresenceCheck + interval
    }

    /// The time for the next look at the display came.
    mutating func checkPresence(at now: Double) -> [SessionEffect] {
        guard let due = presenceDue, due <= now else { return [] }
        lastPresenceCheck = now
        return lookAtTheDisplay()
    }

    /// The display went away (`why`): wait for it, nothing playing, nothing turned meanwhile.
    private mutating func lost(_ why: String, at now: Double) -> [SessionEffect] {
        phase = .waiting(lost: true)
        (playing, asking, lossConfirmAt) = (nil, nil, nil)
        wait(why, at: now)
        var report = displayReport
        report.problem = why
        let abilities = DisplayAbilities(canRotateOutput: false, ownsOutput: display.ownsOutput)
        let line = "the display went away; \(why); the video starts again when it answers"
        // Its backend's compositor is gone; a new watch comes with the new one.
        return [.player(.leaveAlone), .warning(line), .watchOutputs(false)]
            + handle(.displayProbed(abilities, report), at: now) + [.watchDisplay(true)]
    }

    private mutating func wait(_ why: String, at now: Double) {
        waitingSince = now
        waitingWhy = why
    }

    /// The display has not answered for the whole wait: why the session ends.
    func waitedTooLong(at now: Double) -> String? {
        guard let since = waitingSince, let wait = displayWait, now - since >= wait else { return nil }
        return "\(waitingWhy) (waited \(Int(wait)) s; display.wait sets how long)"
    }

    private var waitText: String { displayWait.map { "\(Int($0)) s" } ?? "never (display.wait = 0)" }
}

extension SessionCore {
    /// What the output shows upright while `interface` is shown by `strategy`: the interface
    /// itself when the output turns to it, portrait when it turns for the surface strategy, else
    /// what it shows now (its transform from the panel's natural orientation): the picture turns
    /// by the rest.
    func panelShows(_ strategy: AppliedStrategy, _ interface: InterfaceOrientation) -> InterfaceOrientation {
        if display.canRotateOutput { return strategy == .interface ? interface : .portrait }
        return InterfaceOrientation(angle: (displayReport.transform ?? 0) + natural.angle) ?? natural
    }
}
