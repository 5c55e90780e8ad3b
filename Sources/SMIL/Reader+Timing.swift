extension Reader {
    typealias Timing = SMILDocument.Timing

    /// `e`'s timing attributes, or `nil` (with a warning) when one cannot be read: an element whose
    /// time is unknown is left out rather than played at a time nobody meant.
    /// A `seq`'s child may have any begin value (SMIL 3.0 allows offsets only; players take
    /// wallclock and event values there, from the time its turn comes).
    mutating func timing(_ e: MarkupElement) -> Timing? {
        var t = Timing()
        for key in ["begin", "end"] {
            guard let text = e.attributes[key] else { continue }
            switch ClockValue.list(text) {
            case .success(let values):
                if key == "begin" { t.begin = values } else { t.end = values }
            case .failure(let problem):
                warn("\(key) value '\(problem.text)' is not a time value; '\(e.name)' left out", at: e)
                return nil
            }
        }
        if let dur = e.attributes["dur"] {
            switch dur {
            case "indefinite": t.dur = .indefinite
            case "media": t.dur = .implicit
            default:
                guard let s = ClockValue.seconds(Substring(dur)) else {
                    warn("dur '\(dur)' is not a clock value; '\(e.name)' left out", at: e)
                    return nil
                }
                t.dur = .seconds(s)
            }
        }
        guard repeats(e, &t) else { return nil }
        options(e, &t)
        return t
    }

    mutating func repeats(_ e: MarkupElement, _ t: inout Timing) -> Bool {
        if let count = e.attributes["repeatCount"] {
            if count == "indefinite" {
                t.repeatCount = .infinity
            } else if let n = ClockValue.number(Substring(count), fraction: true), n > 0 {
                t.repeatCount = n
            } else {
                warn("repeatCount '\(count)' is not a positive number or 'indefinite'; '\(e.name)' left out", at: e)
                return false
            }
        }
        if let text = e.attributes["repeatDur"] {
            if text == "indefinite" {
                t.repeatDur = .infinity
            } else if let s = ClockValue.seconds(Substring(text)) {
                t.repeatDur = s
            } else {
                warn("repeatDur '\(text)' is not a clock value or 'indefinite'; '\(e.name)' left out", at: e)
                return false
            }
        }
        return true
    }

    /// `fill`, `endsync` and `restart`; a value that is none of theirs keeps the default, said.
    mutating func options(_ e: MarkupElement, _ t: inout Timing) {
        if let fill = e.attributes["fill"] {
            switch fill {
            case "default", "auto": t.fill = .auto
            case "transition": t.fill = .freeze
            default:
                if let f = Timing.Fill(rawValue: fill) { t.fill = f } else { bad("fill", fill, at: e) }
            }
        }
        if let sync = e.attributes["endsync"] {
            switch sync {
            case "first": t.endsync = .first
            case "last": t.endsync = .last
            case "all": t.endsync = .all
            case "media": t.endsync = .last
            default:
                if ClockValue.isName(sync) { t.endsync = .id(sync) } else { bad("endsync", sync, at: e) }
            }
        }
        if let restart = e.attributes["restart"] {
            if restart == "default" {
                t.restart = .always
            } else if let r = Timing.Restart(rawValue: restart) {
                t.restart = r
            } else {
                bad("restart", restart, at: e)
            }
        }
    }
}
