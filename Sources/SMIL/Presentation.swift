/// A moment as the presentation is told it: time as data.
public struct Moment: Sendable, Hashable {
    /// Seconds since the presentation was made, on a clock that never steps (monotonic).
    public var elapsed: Double
    /// The system clock then: seconds since 1970 UTC.
    public var utc: Double
    /// The local zone's offset from UTC then, in seconds (wallclock values are local time).
    public var utcOffset: Int

    public init(elapsed: Double, utc: Double, utcOffset: Int) {
        self.elapsed = elapsed
        self.utc = utc
        self.utcOffset = utcOffset
    }
}

/// What the presentation is told.
public enum SMILInput: Sendable, Hashable {
    /// Time has passed.
    case tick(Moment)
    /// A continuous media node's media ended (or could not be played): its own duration is over.
    /// `serial` is the shown interval's (``Shown/serial``): the end of an earlier one is no news.
    case mediaEnded(node: Int, serial: Int, Moment)
    /// A continuous media node's media could not be played: it ends at once, unless it failed
    /// within ``Presentation/failureWindow`` before (then it holds its slot for
    /// ``Presentation/failureHold``, so that an index of media that all fail is no busy loop).
    case mediaFailed(node: Int, serial: Int, Moment)
    /// A node's region was tapped or clicked (its `activateEvent`).
    case activate(node: Int, Moment)
    /// A key (`accesskey(k)`) or a named notification (`notify(name)`).
    case event(TimeValue.Event, Moment)

    var moment: Moment {
        switch self {
        case .tick(let m), .mediaEnded(_, _, let m), .mediaFailed(_, _, let m), .activate(_, let m), .event(_, let m): m
        }
    }
}

/// Where media shows: a region, the root layout as a whole, or (audio) no place on screen.
public enum Slot: Sendable, Hashable, Comparable {
    case root
    case region(Int)
    case audio
}

/// What a slot shows: a media node's one interval (`serial` grows with each begin and repeat).
public struct Shown: Sendable, Hashable {
    public var node: Int
    public var serial: Int
    public var media: SMILDocument.Media
    /// Paused by an `excl`, or held at its end (`fill`): the picture stays, time does not run.
    public var held: Bool
    /// Seconds into the media when it (re)appeared: more than 0 when a paused video resumes.
    public var position: Double
}

/// What the presentation asks of its shell, in order.
public enum SMILEffect: Sendable, Hashable {
    case show(Slot, Shown)
    case clear(Slot)
    /// The media in the slot holds still (paused, or frozen at its end), or runs on.
    case hold(Slot, Bool)
    case prefetch(String)
    /// The body ended and began again (signage plays on).
    case restarted
}

/// The presentation's rules in time, as a value: SMIL 3.0's `seq`, `par` and `excl` (with
/// priority classes), `begin`/`end` lists (offsets, wallclock times, syncbase and event values),
/// `dur`, `repeatCount`, `repeatDur`, `endsync`, `fill` and `restart`. Inputs carry their moment;
/// the effects say what each slot shows. It reads no clock and does no I/O.
public struct Presentation: Sendable {
    public let document: SMILDocument
    var states: [NodeState]
    /// The latest moment handled, in elapsed seconds.
    public internal(set) var now: Double
    /// `utc - elapsed`: where elapsed time stands on the system clock (moved when the clock steps).
    var origin: Double
    var utcOffset: Int
    public internal(set) var shown: [Slot: Shown] = [:]
    /// How many times the body has begun.
    public internal(set) var rounds = 0
    /// When each media node's media last failed to play (kept across its parents' repeats).
    var failedAt: [Int: Double] = [:]
    /// Steps taken by the last input: bounded, so that no index can hold the loop.
    static let stepLimit = 100_000
    /// A medium that fails again within this many seconds of its last failure holds its slot
    /// for ``failureHold`` seconds before the presentation goes on.
    public static let failureWindow = 10.0
    public static let failureHold = 5.0
    /// The nodes whose `begin` or `end` waits on another element (by its id), or on a key or a
    /// notification (under ""): what an occurrence looks at, rather than every node.
    let listeners: [String: [Int]]

    public init(_ document: SMILDocument, at moment: Moment) {
        self.document = document
        states = Array(repeating: NodeState(), count: document.nodes.count)
        listeners = Self.listeners(of: document)
        now = moment.elapsed
        origin = moment.utc - moment.elapsed
        utcOffset = moment.utcOffset
    }

    static func listeners(of document: SMILDocument) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        for (j, node) in document.nodes.enumerated() {
            var keys: Set<String> = []
            for value in (node.timing.begin ?? []) + node.timing.end {
                switch value {
                case .syncbase(let id, _, _), .event(.element(let id, _), _): keys.insert(id)
                case .event(.accesskey, _), .event(.notify, _): keys.insert("")
                default: break
                }
            }
            for key in keys { out[key, default: []].append(j) }
        }
        return out
    }

    /// Begins the body at the moment given when made; what shows first.
    public mutating func start() -> [SMILEffect] {
        guard !document.nodes.isEmpty else { return [] }
        var effects: [SMILEffect] = []
        begin(0, at: now, effects: &effects)
        settle(effects: &effects)
        return effects
    }

    public mutating func handle(_ input: SMILInput) -> [SMILEffect] {
        guard !document.nodes.isEmpty else { return [] }
        let m = input.moment
        if abs(m.utc - m.elapsed - origin) > 1 { origin = m.utc - m.elapsed }
        utcOffset = m.utcOffset
        var effects: [SMILEffect] = []
        run(until: max(now, m.elapsed), effects: &effects)
        switch input {
        case .tick: break
        case .mediaEnded(let node, let serial, _):
            if document.nodes.indices.contains(node), states[node].phase == .active, states[node].serial == serial,
                states[node].simpleDuration(document.nodes[node]) == nil
            {
                simpleEnded(node, at: now, effects: &effects)
            }
        case .mediaFailed(let node, let serial, _):
            guard document.nodes.indices.contains(node), states[node].phase == .active, states[node].serial == serial,
                states[node].simpleDuration(document.nodes[node]) == nil
            else { break }
            let again = failedAt[node].map { now - $0 < Self.failureWindow } ?? false
            failedAt[node] = now
            if again {
                states[node].mediaLength = now - states[node].iterationBegin + Self.failureHold
            } else {
                simpleEnded(node, at: now, effects: &effects)
            }
        case .activate(let node, _):
            if document.nodes.indices.contains(node), let id = document.nodes[node].id {
                occurred(.element(id: id, name: "activateEvent"), at: now)
            }
        case .event(let event, _): occurred(event, at: now)
        }
        settle(effects: &effects)
        return effects
    }

    /// When the next change is due (elapsed seconds), for the shell's one timer; `nil` when
    /// nothing will change until an input comes.
    public var nextChange: Double? { nextAction()?.time }

    /// Every change due up to `time`, in time order.
    mutating func run(until time: Double, effects: inout [SMILEffect]) {
        var steps = 0
        while steps < Self.stepLimit, let action = nextAction(), action.time <= time {
            steps += 1
            now = max(now, action.time)
            perform(action, effects: &effects)
        }
        now = max(now, time)
    }

    /// Changes due now, then what shows.
    mutating func settle(effects: inout [SMILEffect]) {
        run(until: now, effects: &effects)
        project(effects: &effects)
    }
}
