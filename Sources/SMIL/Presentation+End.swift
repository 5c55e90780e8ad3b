extension Presentation {
    /// The node's simple duration ended at `t`: it repeats when its repeats allow, else it ends.
    mutating func simpleEnded(_ i: Int, at t: Double, effects: inout [SMILEffect]) {
        let node = document.nodes[i], s = states[i]
        let count = node.timing.repeatCount ?? (node.timing.repeatDur != nil ? .infinity : 1)
        let withinDur = node.timing.repeatDur.map { t < s.begin + $0 } ?? true
        // An iteration that took no time would repeat for ever at one instant: it ends instead.
        guard Double(s.iteration + 1) < count, withinDur, t > s.iterationBegin, t < (s.activeEnd ?? .infinity) else {
            finish(i, at: t, effects: &effects)
            return
        }
        reset(below: i, parentEnds: false)
        states[i].iteration += 1
        states[i].iterationBegin = t
        states[i].serial += 1
        states[i].mediaLength = nil
        armChildren(i, at: t)
        endsIfEmpty(i, at: t, effects: &effects)
    }

    /// The node's active duration ends at `t` (`stopped`: an `excl` or a restart cut it off, and
    /// nothing of it stays on screen); then its parent hears of it.
    mutating func finish(_ i: Int, at t: Double, stopped: Bool = false, effects: inout [SMILEffect]) {
        guard states[i].isOn else { return }
        let freezes = !stopped && document.nodes[i].timing.freezes
        reset(below: i, parentEnds: true, freeze: freezes)
        states[i].phase = freezes ? .frozen : .done
        states[i].activeEnd = nil
        states[i].endedOnce = true
        occurred(i, end: true, at: t)
        if stopped { return }
        ended(child: i, at: t, effects: &effects)
    }

    /// The descendants of `i` leave their state: idle again for a new iteration, or (when `i`
    /// itself ends) done, or frozen where `i` freezes and they show.
    mutating func reset(below i: Int, parentEnds: Bool, freeze: Bool = false) {
        for c in document.nodes[i].children {
            reset(below: c, parentEnds: parentEnds, freeze: freeze && states[c].phase != .done)
            let shows = states[c].phase != .idle && states[c].phase != .done
            var s = NodeState()
            s.serial = states[c].serial
            if parentEnds && freeze && shows {
                s = states[c]
                s.phase = .frozen
                s.armed = false
                s.activeEnd = nil
            }
            states[c] = s
        }
        states[i].queue = []
    }

    /// A child of the node's parent ended at `t`: a `seq` goes on to the next, a `par` or an
    /// `excl` checks its `endsync`, an `excl` takes the next one waiting; the body begins again.
    mutating func ended(child i: Int, at t: Double, effects: inout [SMILEffect]) {
        guard let p = document.nodes[i].parent else {
            states[0].restartAt = max(t, states[0].begin + 1)
            return
        }
        let parent = document.nodes[p]
        switch parent.kind {
        case .seq:
            // Its turn is over: a wallclock or an event that comes again does not begin it again.
            states[i].armed = false
            let next = parent.children.firstIndex(of: i).map { $0 + 1 } ?? parent.children.count
            if next < parent.children.count {
                arm(parent.children[next], at: t)
            } else if states[p].simpleDuration(parent) == nil, states[p].phase == .active {
                simpleEnded(p, at: t, effects: &effects)
            }
        case .par, .excl:
            if case .excl = parent.kind { resumeWaiting(p, at: t, effects: &effects) }
            endsync(p, child: i, at: t, effects: &effects)
        case .priorityClass:
            guard let excl = parent.parent else { return }
            resumeWaiting(excl, at: t, effects: &effects)
            endsync(excl, child: i, at: t, effects: &effects)
        case .media, .prefetch: break
        }
    }

    /// A `par`'s or an `excl`'s implicit end: `first` at its first child's end, an id at that
    /// child's, `all` when every child has ended once, `last` when none plays, waits or has a
    /// begin still to come.
    mutating func endsync(_ p: Int, child i: Int, at t: Double, effects: inout [SMILEffect]) {
        let parent = document.nodes[p]
        guard states[p].phase == .active, states[p].simpleDuration(parent) == nil else { return }
        let members = timedChildren(p)
        let done: Bool
        switch parent.timing.endsync {
        case .first: done = true
        case .id(let id): done = document.nodes[i].id == id
        case .all: done = members.allSatisfy { states[$0].endedOnce }
        case .last:
            done =
                states[p].queue.isEmpty
                && members.allSatisfy { !states[$0].isOn && (!states[$0].armed || nextBegin($0) == nil) }
        }
        if done { simpleEnded(p, at: t, effects: &effects) }
    }

    /// A container's timed children: an `excl`'s through its priority classes.
    func timedChildren(_ p: Int) -> [Int] {
        document.nodes[p].children.flatMap { c -> [Int] in
            if case .priorityClass = document.nodes[c].kind { return document.nodes[c].children }
            return [c]
        }
    }
}
