extension Presentation {
    typealias PriorityClass = SMILDocument.PriorityClass

    /// The priority class of an `excl`'s child: its index among the `excl`'s classes (0 the
    /// highest) and its rules; a child outside any class is in one of its own, by the defaults.
    func priority(of i: Int) -> (rank: Int, rules: PriorityClass) {
        guard let p = document.nodes[i].parent, case .priorityClass(let rules) = document.nodes[p].kind,
            let excl = document.nodes[p].parent
        else { return (0, PriorityClass()) }
        return (document.nodes[excl].children.firstIndex(of: p) ?? 0, rules)
    }

    /// Child `i` of `excl` would begin at `t`: what plays now gives way (stopped or paused), or
    /// `i` waits (deferred), or does not begin (never), by SMIL's priority-class rules.
    mutating func arbitrate(_ i: Int, in excl: Int, at t: Double, effects: inout [SMILEffect]) {
        guard let playing = timedChildren(excl).first(where: { states[$0].phase == .active }), playing != i else {
            if states[i].isOn { finish(i, at: t, stopped: true, effects: &effects) }
            states[excl].queue.removeAll { $0.node == i }
            begin(i, at: t, effects: &effects)
            return
        }
        let new = priority(of: i), old = priority(of: playing)
        enum Outcome { case stop, pause, wait, drop }
        let outcome: Outcome
        if new.rank == old.rank {
            switch old.rules.peers {
            case .stop: outcome = .stop
            case .pause: outcome = .pause
            case .defer: outcome = .wait
            case .never: outcome = .drop
            }
        } else if new.rank < old.rank {
            outcome = old.rules.higher == .stop ? .stop : .pause
        } else {
            outcome = old.rules.lower == .defer ? .wait : .drop
        }
        switch outcome {
        case .drop: return
        case .wait:
            if !states[excl].queue.contains(where: { $0.node == i }) {
                states[excl].queue.append(.init(node: i, paused: false, since: t))
            }
            return
        case .stop: finish(playing, at: t, stopped: true, effects: &effects)
        case .pause: pause(playing, at: t, in: excl)
        }
        states[excl].queue.removeAll { $0.node == i }
        begin(i, at: t, effects: &effects)
    }

    /// `i` and what plays inside it hold still from `t`, queued to resume.
    mutating func pause(_ i: Int, at t: Double, in excl: Int) {
        setPhase(below: i, from: .active, to: .paused)
        states[i].phase = .paused
        states[i].pausedAt = t
        states[excl].queue.append(.init(node: i, paused: true, since: t))
    }

    mutating func setPhase(below i: Int, from: NodeState.Phase, to: NodeState.Phase) {
        for c in document.nodes[i].children {
            if states[c].phase == from { states[c].phase = to }
            setPhase(below: c, from: from, to: to)
        }
    }

    /// Nothing of `excl` plays: the highest waiting child resumes (a paused one, its own
    /// duration moved on by its pause, its `end` values not) or begins (a deferred one). Among
    /// equals a paused one goes first, then the latest queued; of those queued at one moment,
    /// the later in the document.
    mutating func resumeWaiting(_ excl: Int, at t: Double, effects: inout [SMILEffect]) {
        guard states[excl].phase == .active, !states[excl].queue.isEmpty,
            !timedChildren(excl).contains(where: { states[$0].phase == .active })
        else { return }
        let queue = states[excl].queue
        let order = queue.indices.sorted { a, b in
            let (x, y) = (queue[a], queue[b])
            let (rx, ry) = (priority(of: x.node).rank, priority(of: y.node).rank)
            if rx != ry { return rx < ry }
            if x.paused != y.paused { return x.paused }
            if x.paused && x.since != y.since { return x.since > y.since }
            if !x.paused && x.since != y.since { return x.since < y.since }
            return x.node > y.node
        }
        guard let first = order.first else { return }
        let next = queue[first]
        states[excl].queue.remove(at: first)
        guard next.paused, states[next.node].phase == .paused else {
            // A deferred one keeps its `end` instances: one that passed while it waited ends it.
            let fixedEnd = nextEnd(next.node, after: next.since)
            begin(next.node, at: t, effects: &effects)
            if let end = fixedEnd, end <= t { finish(next.node, at: t, effects: &effects) }
            return
        }
        let fixedEnd = nextEnd(next.node, after: states[next.node].begin)
        shift(next.node, by: t - (states[next.node].pausedAt ?? t), own: false)
        states[next.node].phase = .active
        states[next.node].pausedAt = nil
        states[next.node].activeEnd = earliest(fixedEnd, durationEnd(next.node, from: states[next.node].begin))
        setPhase(below: next.node, from: .paused, to: .active)
        // Its `end` passed while it was paused: it ends now, and the next waiting one plays.
        if let end = states[next.node].activeEnd, end <= t { finish(next.node, at: t, effects: &effects) }
    }

    /// A paused subtree's times moved on by the length of its pause: all of its descendants',
    /// and its own begin (its `end` instances are the `excl`'s, and stay: `own` false).
    mutating func shift(_ i: Int, by delta: Double, own: Bool = true) {
        guard delta > 0 else { return }
        states[i].begin += delta
        states[i].iterationBegin += delta
        if own {
            states[i].activeEnd = states[i].activeEnd.map { $0 + delta }
            states[i].ends = states[i].ends.map { $0 + delta }
        }
        states[i].begins = states[i].begins.map { $0 + delta }
        if states[i].armed { states[i].cursor += delta }
        states[i].armedAt += delta
        for c in document.nodes[i].children { shift(c, by: delta) }
    }
}
