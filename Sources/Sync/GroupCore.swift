public import OrientationCore
public import Wire

/// A moment on this node's two clocks: the system clock (Unix seconds, which the group's time and
/// the seals use) and a monotonic one (seconds, for every timeout).
public struct GroupNow: Sendable, Hashable {
    public var wall: Double
    public var mono: Double

    public init(wall: Double, mono: Double) {
        self.wall = wall
        self.mono = mono
    }
}

/// A wall's sync group as this node sees it, as a value: who is in it (the nodes heard lately),
/// whose clock is the group's (the least name heard: ``GroupMembers``), this node's estimate of
/// that clock (``ClockOffset``, from NTP-style exchanges), the leader's schedule, and the clip and
/// orientation words every screen takes at one instant. It takes what the broker delivers and the
/// ticks of one timer, each with its time, and says what to publish and what to do; no I/O, no
/// clock. With a key (`[sync] key_file`), only sealed messages count (``GroupSeal``): fresh, never
/// seen before, each sender known by its topic.
public struct GroupCore: Sendable {
    /// How this node takes part.
    public struct Setup: Sendable {
        /// The group's base topic (`PREFIX/sync/GROUP`), the group's name and this node's.
        public var base: String
        public var group: String
        public var me: String
        /// Follows a leader's schedule (else the clock's: the first item at the epoch).
        public var leader: Bool
        /// The group's key; `nil`: messages go unsealed, on a broker the operator trusts.
        public var seal: GroupSeal?
        /// A sealed message older than this (or this far ahead of this node's clock) changes nothing.
        public var freshness = 30.0
        /// This process's mark in its heartbeats: another process under the same name is told apart.
        public var mark: String
        /// Seeds the ping ids (the shell's system random): they cannot be guessed.
        public var seed: UInt64

        public init(base: String, group: String, me: String, leader: Bool, seal: GroupSeal?, mark: String, seed: UInt64)
        {
            self.base = base
            self.group = group
            self.me = me
            self.leader = leader
            self.seal = seal
            self.mark = mark
            self.seed = seed
        }
    }

    public enum Input: Sendable, Hashable {
        /// The broker took the connection (again): subscribe, say this node is here.
        case connected
        /// The broker is away, and why.
        case disconnected(String)
        /// A message the broker delivered, when it arrived (the system clock), and whether the
        /// broker kept it (sent at a subscription: the state of before).
        case message(topic: String, payload: [UInt8], receivedAt: Double, retained: Bool)
        /// The timer's tick (``nextDeadline``).
        case tick
        /// This node's accelerometer read an orientation: the whole wall takes it.
        case shareOrientation(DeviceOrientation)
        /// A clip asked of this node: every screen plays it from one instant.
        case shareClip(String)
        /// The leader's word: its next item and when it starts (or the item a step moved to, now).
        case announce(ScheduleAnchor)
        /// This node leaves the group (the process ends).
        case leaving
    }

    public enum Effect: Sendable, Hashable {
        case subscribe(String, atMostOnce: Bool)
        case publish(topic: String, payload: String, retain: Bool, atMostOnce: Bool)
        /// Every node takes this orientation at group time `at`.
        case turn(DeviceOrientation, at: Double)
        /// Every node plays this clip from group time `at`.
        case clip(String, at: Double)
        case log(GroupLogLevel, String)
        /// Who leads this node now changed (``ledBy``): `nil` when it leads or follows the clock.
        case ledBy(String?)
    }

    public let setup: Setup
    public private(set) var members: GroupMembers
    /// The node whose clock is the group's; `nil` until the others have had time to be heard.
    public private(set) var reference: String?
    public private(set) var offset = ClockOffset()
    /// The estimate before the reference changed, kept until the new one answers.
    public private(set) var previous: Double?
    /// Following a leader: the item that starts (or started) at a group time, and who said so.
    public private(set) var schedule: ScheduleAnchor?
    public private(set) var leader: String?
    /// The wall's orientation last shared, by whom, and the group time it was taken at.
    public private(set) var orientation: (device: DeviceOrientation, from: String, at: Double)?
    /// The broker, in words.
    public private(set) var broker = "connecting"
    /// Another node's heartbeat came under this node's name.
    public private(set) var sameName = false
    /// Messages that changed nothing, and the last one's sender and reason.
    public private(set) var rejected = 0
    public private(set) var lastRejection: String?
    /// When the timer is next due (monotonic seconds).
    public private(set) var nextDeadline: Double

    private let started: GroupNow
    private var tickCount = 0
    private var pending: [UInt64: (to: String, sent: Double)] = [:]
    private var exchangesSinceChange = 0
    private var random: SplitMix64
    /// Each sender's last schedule (the retained ones arrive before the reference is known).
    private var schedules: [String: ScheduleAnchor] = [:]
    /// The codes of the sealed messages taken within twice the freshness window, with their times.
    private var seen: [String: Double] = [:]
    /// The senders and reasons already logged (each once).
    private var logged: Set<String> = []

    /// ``ledBy`` as last said (``Effect/ledBy(_:)``).
    private var saidLedBy: String?

    /// The timer's period.
    public static let tickPeriod = 0.25
    /// How long after its reading the group takes an orientation: the broker's delivery to every node.
    public static let turnLead = 0.25
    /// How far ahead a clip is started: the broker's delivery, and each node's load of it.
    public static let clipLead = 0.5
    /// At most this many codes are remembered (a flood of sealed messages beyond it is refused).
    public static let maxSeen = 8192
    /// At most this many senders' schedules are kept.
    static let maxSchedules = 32

    public init(_ setup: Setup, at now: GroupNow) {
        self.setup = setup
        members = GroupMembers(me: setup.me)
        started = now
        nextDeadline = now.mono
        random = SplitMix64(seed: setup.seed)
    }

    var me: String { setup.me }
    func uptime(_ now: GroupNow) -> Double { now.mono - started.mono }

    /// What to do for `input` at `now`.
    public mutating func handle(_ input: Input, at now: GroupNow) -> [Effect] {
        var out: [Effect] = []
        switch input {
        case .connected:
            broker = "connected"
            for (pattern, once) in GroupAddress.subscriptions(base: setup.base, me: me) {
                out.append(.subscribe(pattern, atMostOnce: once))
            }
            publish(.node, .presence(setup.leader ? "leader" : "clock"), at: now, into: &out)
        case .disconnected(let why):
            broker = why
        case .message(let topic, let payload, let receivedAt, let retained):
            receive(topic: topic, payload: payload, receivedAt: receivedAt, retained: retained, at: now, into: &out)
        case .tick:
            tick(at: now, into: &out)
        case .shareOrientation(let o):
            let at = (groupTime(at: now) ?? now.wall) + Self.turnLead
            orientation = (o, me, at)
            out.append(.turn(o, at: at))
            publish(.orientation, .orientation(o, at: at), at: now, into: &out)
        case .shareClip(let name):
            let at = (groupTime(at: now) ?? now.wall) + Self.clipLead
            out.append(.clip(name, at: at))
            publish(.clip, .clip(name: name, at: at), at: now, into: &out)
        case .announce(let anchor):
            guard setup.leader, reference == me, schedule != anchor || leader != me else { break }
            schedule = anchor
            leader = me
            publish(.schedule, .schedule(anchor), at: now, into: &out)
        case .leaving:
            // A goodbye the others can trust (with a key, the broker's last will is not trusted).
            publish(.node, .presence(nil), at: now, into: &out)
        }
        if ledBy != saidLedBy {
            saidLedBy = ledBy
            out.append(.ledBy(ledBy))
        }
        return out
    }

    // MARK: - What the group says

    /// The group's time at `now` (Unix seconds): this node's clock corrected by its estimate;
    /// this node's own clock when it is the reference, or when no reference has answered within
    /// 5 s (no broker: the wall plays on its own clocks). `nil` before that.
    public func groupTime(at now: GroupNow) -> Double? {
        if reference == me { return now.wall }
        if let o = offset.offset(at: now.wall) ?? previous { return now.wall + o }
        return uptime(now) > 5 ? now.wall : nil
    }

    /// Which item starts when, on the group's clock: the first item at the Unix epoch when
    /// following the clock; the leader's word when following a leader (`nil` until it is known).
    public var anchor: ScheduleAnchor? { setup.leader ? schedule : ScheduleAnchor(item: 0, at: 0) }

    /// This node leads its group (it follows a leader, and has the least name heard).
    public var leads: Bool { setup.leader && reference == me }

    /// Who leads, for a follower's refusal; `nil` when this node leads or follows the clock.
    public var ledBy: String? {
        guard setup.leader, reference != me else { return nil }
        return leader ?? reference
    }

    /// The members heard lately at `now` (authenticated ones only, with a key), this node included.
    public func memberNames(at now: GroupNow) -> [String] {
        var m = members
        return m.members(at: uptime(now))
    }

    /// Why the group is not what the operator may think, in words; `nil`: nothing to say.
    public var problem: String? {
        if sameName { return Self.sameNameProblem(me) }
        if setup.seal == nil { return "[sync] has no key_file: anyone on the broker can move the wall" }
        return nil
    }

    public static func sameNameProblem(_ name: String) -> String {
        "another node of the group is named \(name) too: give each screen its own [mqtt] device (nodes on one machine share its host name)"
    }

    // MARK: - Receiving

    private mutating func receive(
        topic: String, payload bytes: [UInt8], receivedAt: Double, retained: Bool, at now: GroupNow,
        into out: inout [Effect]
    ) {
        guard let address = GroupAddress(topic: topic, base: setup.base) else {
            return reject(nil, .malformed, kind: nil, into: &out)
        }
        let from = address.from
        guard bytes.count <= GroupWire.maxPayload, let payload = String(validating: bytes, as: UTF8.self) else {
            return reject(from, .malformed, kind: address.kind, into: &out)
        }
        var body = Substring(payload)
        var sealedAt: Double?
        if let seal = setup.seal {
            if from == me, address.kind != .beat { return }  // this node's own, back from the broker
            switch seal.open(body, topic: topic) {
            case .failure(let why): return reject(from, why, kind: address.kind, into: &out)
            case .success(let opened):
                // A member's word the broker kept, aged out or taken already (a connection
                // again), is state of before: it changes nothing, and is no one's attack.
                let kept = retained && opened.time <= now.wall
                guard abs(now.wall - opened.time) <= setup.freshness else {
                    if !kept { reject(from, .stale, kind: address.kind, into: &out) }
                    return
                }
                guard seen[opened.code] == nil, seen.count < Self.maxSeen else {
                    if !kept { reject(from, .replayed, kind: address.kind, into: &out) }
                    return
                }
                seen[opened.code] = opened.time
                body = opened.body
                sealedAt = opened.time
            }
        } else if GroupSeal.looksSealed(body) {
            if from == me { return }
            return reject(
                from, .unsigned, kind: address.kind, into: &out, note: "sealed, and this node has no key_file")
        }
        guard case .success(let word) = GroupWire.word(address.kind, body) else {
            return reject(from, .malformed, kind: address.kind, into: &out)
        }
        if from == me {
            // Another process under this node's name (a beat of this one's previous run, sealed
            // before this one started, is not one).
            if case .beat(let mark) = word, mark != setup.mark, sealedAt.map({ $0 >= started.wall }) ?? true {
                if !sameName { out.append(.log(.error, "sync: \(Self.sameNameProblem(me))")) }
                sameName = true
            }
            return
        }
        if let to = address.to, to != me { return }
        take(word, from: from, receivedAt: receivedAt, at: now, into: &out)
    }

    private mutating func take(
        _ word: GroupWord, from: String, receivedAt: Double, at now: GroupNow, into out: inout [Effect]
    ) {
        switch word {
        case .beat: members.heard(from, at: uptime(now))
        case .presence(let follow): if follow == nil { members.left(from) }
        case .ping(let id, let sent):
            // Answered at once, with when it came and when the answer goes.
            publish(
                .pong, .pong(id: id, sent: sent, received: receivedAt, answered: now.wall), to: from, at: now,
                into: &out)
        case .pong(let id, let sent, let received, let answered):
            guard let ping = pending[id], ping.to == from, ping.sent == sent else {
                return reject(from, .notTheirs, kind: .pong, into: &out)
            }
            pending[id] = nil
            members.heard(from, at: uptime(now))
            guard from == reference else { return }
            offset.add(ClockExchange(sent: sent, remoteReceived: received, remoteSent: answered, received: receivedAt))
            exchangesSinceChange += 1
        case .schedule(let anchor):
            guard setup.leader else { return }
            if schedules[from] == nil, schedules.count >= Self.maxSchedules {
                // Full: the words of senders not heard lately make room (a flood of names).
                let members = Set(memberNames(at: now))
                schedules = schedules.filter { members.contains($0.key) }
                if schedules.count >= Self.maxSchedules { return }
            }
            schedules[from] = anchor
            if from == reference {
                schedule = anchor
                leader = from
            }
        case .clip(let name, let at):
            if setup.leader, from != ledBy {
                return reject(from, .notTheirs, kind: .clip, into: &out)
            }
            // One long gone is not played.
            guard at > (groupTime(at: now) ?? now.wall) - 5 else {
                return reject(from, .stale, kind: .clip, into: &out)
            }
            out.append(.clip(name, at: at))
        case .orientation(let o, let at):
            // The same word again (its sender says it while it stands) turns nothing.
            if let last = orientation, last.device == o, last.from == from, last.at == at { return }
            orientation = (o, from, at)
            out.append(.turn(o, at: at))
        }
    }

    private mutating func reject(
        _ from: String?, _ why: GroupRejection, kind: GroupAddress.Kind?, into out: inout [Effect], note: String? = nil
    ) {
        rejected += 1
        let what = "\(kind?.rawValue ?? "a message") from \(from ?? "an unknown topic"): \(why.rawValue)"
        lastRejection = what + (note.map { " (\($0))" } ?? "")
        let key = "\(from ?? "")|\(why.rawValue)"
        if !logged.contains(key), logged.count < 64 {
            logged.insert(key)
            out.append(.log(.warning, "sync: ignored \(lastRejection ?? what); it changes nothing"))
        }
    }

    // MARK: - The timer

    /// Every quarter second: a heartbeat on the first, a ping half a second later (so that no
    /// packet of this node's goes just ahead of the answer), the leader's part every half second,
    /// the standing words said again every 5 s (a sealed word goes stale: a screen that starts
    /// later takes only a current one).
    private mutating func tick(at now: GroupNow, into out: inout [Effect]) {
        guard now.mono >= nextDeadline else { return }
        let n = tickCount
        tickCount += 1
        nextDeadline += Self.tickPeriod
        if nextDeadline <= now.mono { nextDeadline = now.mono + Self.tickPeriod }
        if n % 4 == 0 { publish(.beat, .beat(mark: setup.mark), at: now, into: &out) }
        elect(at: now, into: &out)
        if n % 4 == 2 { ping(tick: n, at: now, into: &out) }
        if n % 2 == 0, setup.leader { lead(at: now, into: &out) }
        if n % 20 == 10 {
            if leads, leader == me, let schedule { publish(.schedule, .schedule(schedule), at: now, into: &out) }
            if let o = orientation, o.from == me {
                publish(.orientation, .orientation(o.device, at: o.at), at: now, into: &out)
            }
            seen = seen.filter { abs(now.wall - $0.value) <= 2 * setup.freshness }
        }
    }

    /// The leader's part: a group without a schedule gets one (its round starting now); a
    /// schedule another leader wrote is kept, and said again as this node's. Only after 2.5 s,
    /// when the retained schedules have arrived.
    private mutating func lead(at now: GroupNow, into out: inout [Effect]) {
        guard uptime(now) >= 2.5, reference == me else { return }
        if schedule == nil { schedule = ScheduleAnchor(item: 0, at: (now.wall * 1000).rounded() / 1000) }
        guard leader != me, let anchor = schedule else { return }
        leader = me
        out.append(.log(.notice, "sync: this node leads the group \(setup.group)"))
        publish(.schedule, .schedule(anchor), at: now, into: &out)
    }

    /// The reference: the least name heard (after a second and a quarter, when the others'
    /// heartbeats have been heard); a new one starts a new estimate.
    private mutating func elect(at now: GroupNow, into out: inout [Effect]) {
        guard uptime(now) >= 1.2 else { return }
        let next = members.reference(at: uptime(now))
        if next != reference {
            if let old = reference { previous = old == me ? 0 : offset.offset(at: now.wall) ?? previous }
            reference = next
            offset.reset()
            pending = [:]
            exchangesSinceChange = 0
            out.append(.log(.notice, "sync: the group's time comes from \(next == me ? "this node" : next)"))
            // The new leader's schedule, when it said one already; else the old leader's name goes
            // at once (the new one leads from now, and the schedule plays on until it speaks).
            if setup.leader {
                if next != me, let anchor = schedules[next] {
                    schedule = anchor
                    leader = next
                } else {
                    leader = nil
                }
            }
        }
    }

    /// Pings the reference (every second for its first exchanges, then every 2 s).
    private mutating func ping(tick: Int, at now: GroupNow, into out: inout [Effect]) {
        guard let next = reference, next != me else { return }
        if exchangesSinceChange >= 8, tick % 8 != 2 { return }
        pending = pending.filter { now.wall - $0.value.sent < 5 }
        let id = random.next()
        pending[id] = (next, now.wall)
        publish(.ping, .ping(id: id, sent: now.wall), to: next, at: now, into: &out)
    }

    // MARK: - Sending

    private func publish(
        _ kind: GroupAddress.Kind, _ word: GroupWord, to: String? = nil, at now: GroupNow, into out: inout [Effect]
    ) {
        let topic = GroupAddress(from: me, kind: kind, to: to).topic(base: setup.base)
        let text = GroupWire.text(word)
        let payload = setup.seal.map { $0.seal(text, topic: topic, at: now.wall) } ?? text
        let quick = kind == .beat || kind == .ping || kind == .pong
        out.append(.publish(topic: topic, payload: payload, retain: kind.retained, atMostOnce: quick))
    }
}

public enum GroupLogLevel: Sendable, Hashable {
    case notice, warning, error
}

/// SplitMix64 (Steele, Lea and Flood): ids from a seed, the same for the same seed.
struct SplitMix64: Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
