/// The screen's sleep for want of a person (`[screen] idle_off`), beside its power plan: the
/// screen is on while the plan says on and someone was there within `idle_off` seconds. The
/// plan wins when it says off; a person wakes a screen only idleness put to sleep.
extension SessionCore {
    /// When the screen sleeps unless a person comes first; `nil` when it does not (no
    /// `idle_off`, or asleep already).
    var idleDue: Double? {
        guard let off = idleOff, !idle, let last = lastPresence else { return nil }
        return last + off
    }

    /// A person is there now: the wait starts again, and a screen asleep for want of one wakes.
    mutating func sawPresence(at now: Double) -> [SessionEffect] {
        lastPresence = now
        guard idle else { return [] }
        idle = false
        return applyScreen(because: "presence")
    }

    /// `idle_off` seconds without a person: the screen sleeps.
    mutating func idleRule(at now: Double) -> [SessionEffect] {
        guard let due = idleDue, due <= now else { return [] }
        idle = true
        return applyScreen(because: "idle_off")
    }

    /// The screen as the plan and the presence say together: on while both do. A change is said,
    /// carried out (the screen's power, playback paused while it is off) and shown in the status.
    mutating func applyScreen(because cause: String) -> [SessionEffect] {
        let on = planOn && !idle
        guard on != screenOn else { return [] }
        screenOn = on
        let next = cause == "power plan" ? (screenNextChange.map { " until \($0)" } ?? "") : ""
        let why =
            switch cause {
            case "idle_off": "no one for \(Self.seconds(idleOff ?? 0)) ([screen] idle_off)"
            case "presence": "someone is there"
            default: cause
            }
        let words = on ? "screen on (\(why))\(next)" : "screen off (\(why))\(next); nothing plays meanwhile"
        return [.status(words), .player(.pause(!on)), .screenPower(on)]
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
