/// One node's state in time. Times are elapsed seconds.
struct NodeState: Sendable {
    enum Phase: Sendable { case idle, active, paused, frozen, done }
    var phase = Phase.idle
    /// Its parent is active (for a `seq`'s child: its turn has come), so it may begin.
    var armed = false
    /// The syncbase of its offsets: the parent's begin, or (in a `seq`) the previous child's end.
    var armedAt = 0.0
    /// Begin and end instances resolved so far (offsets, syncbase and event values).
    var begins: [Double] = []
    var ends: [Double] = []
    /// Begin instances at or before this have been used.
    var cursor = -Double.infinity
    var begin = 0.0
    var iterationBegin = 0.0
    var iteration = 0
    /// The resolved end of the active duration; `nil` while it depends on what has not happened.
    var activeEnd: Double?
    /// Grows with each begin and each repeat: one interval of a media node shown.
    var serial = 0
    var begunOnce = false
    var endedOnce = false
    var pausedAt: Double?
    /// An `excl`'s children waiting: paused ones to resume, deferred ones to begin.
    var queue: [Queued] = []
    /// When the body begins again after it ended.
    var restartAt: Double?
    /// A `seq`'s child whose turn it is (its index among the children).
    var turn: Int?
    /// A continuous medium's own length in this iteration, when it is known without its end
    /// (a failure held: ``Presentation/failureHold``); `nil` while only its end says it.
    var mediaLength: Double?

    struct Queued: Sendable, Hashable {
        var node: Int
        var paused: Bool
        var since: Double
    }

    var isOn: Bool { phase == .active || phase == .paused }

    /// The node's simple duration now: `nil` while it is not known (a video not yet ended, a
    /// container whose children decide).
    func simpleDuration(_ node: SMILDocument.Node) -> Double? {
        switch node.timing.dur {
        case .seconds(let d): return d
        case .indefinite: return .infinity
        case .implicit: break
        }
        switch node.kind {
        // Only the media's own end (an input) ends a video's or a sound's iteration.
        case .media(let m) where m.isContinuous: return mediaLength
        case .media:
            // A picture, a brush or a text has no length of its own: it lasts until its end
            // where one is given, else no time at all (and freezes, by `fill="auto"`).
            return node.timing.end.isEmpty && node.timing.repeatDur == nil ? 0 : .infinity
        case .prefetch: return 0
        default: return nil
        }
    }
}

/// A change due at a time.
struct Action: Sendable {
    enum Kind: Sendable { case activeEnd, simpleEnd, begin, restart }
    var time: Double
    var node: Int
    var kind: Kind

    /// Ends before begins at the same time, then document order.
    func precedes(_ other: Action) -> Bool {
        if time != other.time { return time < other.time }
        if (kind == .begin) != (other.kind == .begin) { return kind != .begin }
        return node < other.node
    }
}

extension Presentation {
    /// The soonest change due, or `nil`.
    func nextAction() -> Action? {
        var best: Action?
        func consider(_ a: Action) { if best.map({ a.precedes($0) }) ?? true { best = a } }
        if let r = states[0].restartAt { consider(Action(time: r, node: 0, kind: .restart)) }
        for i in live(showing: false) {
            let s = states[i]
            if s.phase == .active {
                let node = document.nodes[i]
                let simple = s.simpleDuration(node).map { s.iterationBegin + $0 }
                if let end = s.activeEnd, end <= (simple ?? .infinity) {
                    consider(Action(time: end, node: i, kind: .activeEnd))
                } else if let simple, simple.isFinite {
                    consider(Action(time: simple, node: i, kind: .simpleEnd))
                }
            }
            let held = document.nodes[i].parent.map { states[$0].phase == .paused } ?? false
            if s.armed, !held, let t = nextBegin(i) { consider(Action(time: t, node: i, kind: .begin)) }
        }
        return best
    }

    /// The nodes worth a look, from the body down through the containers that are on (and,
    /// for what shows, paused or frozen): of a `seq`'s children only the one whose turn it is
    /// and the one before it (the earlier ones are done). A change looks at these, not at every
    /// node of a large index.
    func live(showing: Bool) -> [Int] {
        var out: [Int] = [], stack = [0]
        while let i = stack.popLast() {
            out.append(i)
            let s = states[i]
            guard s.phase == .active || (showing && (s.phase == .paused || s.phase == .frozen)) else { continue }
            let children = document.nodes[i].children
            if document.nodes[i].kind != .seq {
                stack.append(contentsOf: children)
            } else if let turn = s.turn {
                for k in [turn - 1, turn] where children.indices.contains(k) { stack.append(children[k]) }
            }
        }
        return out
    }

    /// The node's next begin instance after those used: resolved ones and wallclock values.
    func nextBegin(_ i: Int) -> Double? {
        let s = states[i]
        var next = s.begins.filter { $0 > s.cursor }.min()
        for case .wallclock(let w) in document.nodes[i].timing.begin ?? [] {
            let from = max(s.cursor + 0.001, s.armedAt)
            guard let utc = w.instance(near: origin + from, atOrAfter: true, localOffset: utcOffset) else {
                continue
            }
            next = min(next ?? .infinity, utc - origin)
        }
        return next
    }

    /// The first end instance after `time`: resolved ones and wallclock values.
    func nextEnd(_ i: Int, after time: Double) -> Double? {
        var next = states[i].ends.filter { $0 > time }.min()
        for case .wallclock(let w) in document.nodes[i].timing.end {
            if let utc = w.instance(near: origin + time + 0.001, atOrAfter: true, localOffset: utcOffset) {
                next = min(next ?? .infinity, utc - origin)
            }
        }
        return next
    }

    mutating func perform(_ action: Action, effects: inout [SMILEffect]) {
        let i = action.node, t = action.time
        switch action.kind {
        case .activeEnd: finish(i, at: t, effects: &effects)
        case .simpleEnd: simpleEnded(i, at: t, effects: &effects)
        case .begin:
            // Used instances go, and ends before this begin: events that come again and again
            // (a key, a tap) for months would otherwise pile up.
            states[i].cursor = t
            states[i].begins.removeAll { $0 <= t }
            states[i].ends.removeAll { $0 < t }
            request(i, at: t, effects: &effects)
        case .restart:
            // Serials go on growing: each round's intervals are new ones.
            states = states.map { old in
                var s = NodeState()
                s.serial = old.serial
                return s
            }
            rounds += 1
            effects.append(.restarted)
            begin(0, at: t, effects: &effects)
        }
    }
}
