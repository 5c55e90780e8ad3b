extension Presentation {
    /// A begin instance of `i` has come: its `restart` rule, and its `excl`'s priorities, decide.
    mutating func request(_ i: Int, at t: Double, effects: inout [SMILEffect]) {
        let node = document.nodes[i], s = states[i]
        if s.isOn || s.begunOnce {
            switch node.timing.restart {
            case .never where s.begunOnce: return
            case .whenNotActive where s.isOn: return
            default: break
            }
        }
        if let excl = exclusive(of: i) {
            arbitrate(i, in: excl, at: t, effects: &effects)
            return
        }
        if s.isOn { finish(i, at: t, stopped: true, effects: &effects) }
        begin(i, at: t, effects: &effects)
    }

    /// The node begins at `t`: its active end as far as known, its children armed.
    mutating func begin(_ i: Int, at t: Double, effects: inout [SMILEffect]) {
        let node = document.nodes[i]
        // What it left on screen before (frozen deep inside) goes with its new interval.
        if states[i].phase != .idle { reset(below: i, parentEnds: false) }
        states[i].phase = .active
        states[i].begin = t
        states[i].iterationBegin = t
        states[i].iteration = 0
        states[i].serial += 1
        states[i].mediaLength = nil
        states[i].begunOnce = true
        states[i].pausedAt = nil
        states[i].activeEnd = activeEnd(i, from: t)
        if case .prefetch(let src) = node.kind { effects.append(.prefetch(src)) }
        thawSiblings(before: i)
        armChildren(i, at: t)
        occurred(i, end: false, at: t)
        endsIfEmpty(i, at: t, effects: &effects)
    }

    /// In a `seq`, what the children before `i` left frozen goes when `i` begins (as SMIL 1.0
    /// has it, and signage players do): a video's last frame never comes back from under a
    /// picture that ends.
    mutating func thawSiblings(before i: Int) {
        guard let p = document.nodes[i].parent, document.nodes[p].kind == .seq else { return }
        for sibling in document.nodes[p].children.prefix(while: { $0 != i }) where states[sibling].phase == .frozen {
            reset(below: sibling, parentEnds: true)
            states[sibling].phase = .done
        }
    }

    /// A container with nothing to play (no child, or none with a begin to come) ends at once.
    mutating func endsIfEmpty(_ i: Int, at t: Double, effects: inout [SMILEffect]) {
        let node = document.nodes[i]
        guard node.isContainer, states[i].simpleDuration(node) == nil, states[i].phase == .active else { return }
        let members = timedChildren(i)
        if members.isEmpty {
            simpleEnded(i, at: t, effects: &effects)
        } else if node.kind != .seq, node.timing.endsync == .last,
            members.allSatisfy({ !states[$0].isOn && nextBegin($0) == nil })
        {
            simpleEnded(i, at: t, effects: &effects)
        }
    }

    /// The end of the active duration begun at `t`, where it is known: the first `end`
    /// instance after `t`, or the end of its repeated duration if sooner.
    func activeEnd(_ i: Int, from t: Double) -> Double? {
        earliest(nextEnd(i, after: t), durationEnd(i, from: t))
    }

    /// The end of the simple duration times the repeats (bounded by `repeatDur`), from `t`.
    func durationEnd(_ i: Int, from t: Double) -> Double? {
        let node = document.nodes[i], timing = node.timing
        if let d = states[i].simpleDuration(node) {
            let repeats = timing.repeatCount ?? (timing.repeatDur != nil ? .infinity : 1)
            var pad = d == 0 ? 0 : d * repeats
            if let rd = timing.repeatDur { pad = min(pad, rd) }
            return pad.isFinite ? t + pad : nil
        }
        if let rd = timing.repeatDur, rd.isFinite { return t + rd }
        return nil
    }

    func earliest(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        return min(a, b ?? a)
    }

    /// A container's children, at the start of its iteration at `t`: every child of a `par` or
    /// an `excl` may begin (its offsets from `t`); a `seq`'s first child takes its turn.
    mutating func armChildren(_ i: Int, at t: Double) {
        let node = document.nodes[i]
        switch node.kind {
        case .seq:
            if let first = node.children.first { arm(first, at: t) }
        case .par, .excl, .priorityClass:
            for c in node.children { arm(c, at: t) }
        case .media, .prefetch: break
        }
    }

    /// `i` may begin from `t`: its offset begins resolved from `t`, and a repeating wallclock
    /// whose window is open now joined at once.
    mutating func arm(_ i: Int, at t: Double) {
        let node = document.nodes[i]
        var s = NodeState()
        s.serial = states[i].serial
        s.armed = true
        s.armedAt = t
        s.cursor = t - 0.000_001
        let defaults: [TimeValue] = inExcl(i) ? [.indefinite] : [.offset(0)]
        // A `seq`'s child begins once a turn: its first offset only (SMIL 3.0 allows one there).
        let inSeq = node.parent.map { document.nodes[$0].kind == .seq } ?? false
        var offsets: [Double] = []
        for case .offset(let o) in node.timing.begin ?? defaults { offsets.append(t + max(0, o)) }
        s.begins = inSeq ? Array(offsets.prefix(1)) : offsets
        for case .offset(let o) in node.timing.end { s.ends.append(t + o) }
        states[i] = s
        if let p = node.parent, document.nodes[p].kind == .seq {
            states[p].turn = document.nodes[p].children.firstIndex(of: i)
        }
        if case .priorityClass = node.kind {
            states[i].armed = false
            states[i].phase = .active
            states[i].begin = t
            armChildren(i, at: t)
        }
        joinWallclock(i, at: t)
    }

    /// A wallclock begin whose last instance has passed while its active time (its `end`, or
    /// its duration) still runs: the node begins now, in the middle of its window.
    mutating func joinWallclock(_ i: Int, at t: Double) {
        let node = document.nodes[i]
        for case .wallclock(let w) in node.timing.begin ?? [] {
            guard let past = w.instance(near: origin + t, atOrAfter: false, localOffset: utcOffset) else {
                continue
            }
            let start = past - origin
            guard start < t else { continue }
            let closes = activeEnd(i, from: start) ?? (node.timing.end.isEmpty ? start : .infinity)
            if closes > t {
                states[i].begins.append(t)
                return
            }
        }
    }

    func inExcl(_ i: Int) -> Bool { exclusive(of: i) != nil }

    /// The `excl` whose child `i` is (directly, or through a priority class).
    func exclusive(of i: Int) -> Int? {
        guard let p = document.nodes[i].parent else { return nil }
        switch document.nodes[p].kind {
        case .excl: return p
        case .priorityClass: return document.nodes[p].parent
        default: return nil
        }
    }

    /// `i` began (or ended) at `t`: nodes whose begin or end waits on it get their instances.
    mutating func occurred(_ i: Int, end: Bool, at t: Double) {
        guard let id = document.nodes[i].id else { return }
        for j in listeners[id] ?? [] where states[j].armed || states[j].isOn {
            let other = document.nodes[j]
            for value in other.timing.begin ?? [] {
                if case .syncbase(id, end, let o) = value { states[j].begins.append(t + o) }
            }
            for value in other.timing.end {
                if case .syncbase(id, end, let o) = value { addEnd(j, t + o) }
            }
        }
        occurred(.element(id: id, name: end ? "endEvent" : "beginEvent"), at: t)
    }

    /// An event at `t`: begins and ends that wait on it get their instances.
    mutating func occurred(_ event: TimeValue.Event, at t: Double) {
        let key: String
        switch event {
        case .element(let id, _): key = id
        case .accesskey, .notify: key = ""
        }
        for j in listeners[key] ?? [] where states[j].armed || states[j].isOn {
            let other = document.nodes[j]
            for case .event(event, let o) in other.timing.begin ?? [] { states[j].begins.append(t + max(0, o)) }
            for case .event(event, let o) in other.timing.end { addEnd(j, t + max(0, o)) }
        }
    }

    /// A new end instance: an active node ends there if that is sooner.
    mutating func addEnd(_ j: Int, _ time: Double) {
        states[j].ends.append(time)
        if states[j].isOn, time >= states[j].begin {
            states[j].activeEnd = min(states[j].activeEnd ?? .infinity, max(time, now))
        }
    }
}
