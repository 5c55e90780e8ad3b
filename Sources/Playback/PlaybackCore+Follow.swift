import Sync
public import Wire

/// What the shell read for a wall's sample (``PlaybackEffect/sampleGroup``): the group's word at
/// that moment and mpv's position.
public struct GroupSample: Sendable, Hashable {
    /// The group's time (Unix seconds); `nil` while it is not known yet.
    public var groupTime: Double?
    /// Which item starts when (group time); `nil` while it is not known yet.
    public var anchor: ScheduleAnchor?
    public var position: Double?
    public var paused: Bool
    public var idle: Bool
    /// The video's frame rate, when known.
    public var fps: Double?

    public init(
        groupTime: Double?, anchor: ScheduleAnchor?, position: Double?, paused: Bool, idle: Bool = false,
        fps: Double? = nil
    ) {
        (self.groupTime, self.anchor, self.position, self.paused, self.idle, self.fps) =
            (groupTime, anchor, position, paused, idle, fps)
    }
}

/// How the player follows its wall, for `ctl status`.
public struct FollowStatus: Sendable, Hashable {
    /// How far ahead of the schedule (negative: behind) it last was, in seconds.
    public var error: Double?
    /// The last correction, in words (`speed 0.995`, `seek to 12.3 s`).
    public var correction: String?
    public var speed: Double
    /// Why the playlist cannot be followed (a live stream, a file without a length).
    public var problem: String?
    /// How far from its instant the last item held at its first frame started (positive: late).
    public var lastStart: Double?
}

/// A wall's node following its group's schedule (``ClockSchedule``: the playlist's items one
/// after the other from an anchor, on the group's clock), sampled every ``sampleEvery`` seconds
/// and corrected by ``ClockFollower``. All its times are the core's, but for the group's, which
/// each sample brings.
struct WallFollowing: Sendable {
    /// A leader says its next item ahead (``PlaybackEffect/announce(_:)``).
    var announces: Bool
    /// The anchor the schedule is laid out from now; a newer one takes over near its item's start.
    var inForce: ScheduleAnchor?
    var follower: ClockFollower?
    /// Each file's length, as mpv read it; `nil`: it has none (it cannot be followed).
    var lengths: [String: Double?] = [:]
    var probing = false
    var problem: String?
    /// A step of this node's (it leads): no correction until its anchor is announced, 2 s at the most.
    var held: (anchor: ScheduleAnchor?, until: Double)?
    /// A leader's step: the item stepped to is said to the group, from its first frame.
    var stepped = false
    /// The next sample is due then.
    var sampleAt: Double
    /// The group's anchor at the last sample.
    var lastAnchor: ScheduleAnchor?
    /// A held item is looked at with the next sample (its first frame came).
    var releaseCheck = false
    /// A held item starts then (core time), that late after its instant.
    var release: (at: Double, late: Double)?
    /// How far from its instant the last held item started (positive: late), in seconds.
    var lastStart: Double?
    /// The next item is asked for at `at` (`nil`: asked already) for the item at `item`, to the
    /// leader's word `to` (else this node's own schedule's next).
    var advance: (item: Int, at: Double?, to: ScheduleAnchor?)?
    /// When the last advance was asked, and the last loads' times: from the ask to the next
    /// item's first frame.
    var advancedAt: Double?
    var loadTimes: [Double] = []
    /// The group time the next clip starts at (a clip of the group's).
    var clipAt: Double?

    /// How long before an item's scheduled end the next is asked for: the longest of the last
    /// eight loads, and 20 ms more (0.15 s until one is measured; 0.5 s at most).
    var loadMargin: Double { loadTimes.isEmpty ? 0.15 : min(0.5, (loadTimes.max() ?? 0) + 0.02) }
}

extension PlaybackCore {
    /// Not a whole number of frames at 24, 25, 30, 50 or 60 fps: samples fall on every part of a
    /// frame, and the mean of their errors is the picture's.
    static let sampleEvery = 0.21

    /// How the player follows its wall; `nil` when it does not.
    public var followStatus: FollowStatus? {
        guard let f = wall else { return nil }
        return FollowStatus(
            error: f.follower?.lastError, correction: f.follower?.lastCorrection?.description,
            speed: f.follower?.speed ?? 1, problem: f.problem, lastStart: f.lastStart)
    }

    /// The playlist's item playing, by its index in the playlist (`nil` for a clip, or none).
    public var playingIndex: Int? {
        guard clipState == nil, let current else { return nil }
        return items.firstIndex(of: current)
    }

    /// Starts following (``PlaybackInput/follow(announces:)``) or stops (`nil`: the speed goes back
    /// to 1, and a held item plays now unless the screen is off).
    mutating func follow(announces: Bool?, at now: Double) -> [PlaybackEffect] {
        guard let announces else {
            guard let f = wall else { return [] }
            wall = nil
            var out: [PlaybackEffect] = []
            if f.follower?.speed != 1 { out.append(.mpv(.set("speed", .double(1)))) }
            if settings.holdStarts, !screenPaused { out.append(.mpv(.set("pause", .flag(false)))) }
            return out
        }
        wall = WallFollowing(announces: announces, sampleAt: now)
        return []
    }

    /// A wall's deadlines: the next sample, a held item's start, the next item's ask.
    var followDeadlines: [Double?] { [wall?.sampleAt, wall?.release?.at, wall?.advance?.at] }

    mutating func followTick(at now: Double) -> [PlaybackEffect] {
        guard var f = wall else { return [] }
        var out: [PlaybackEffect] = []
        if let r = f.release, r.at <= now {
            f.release = nil
            wall = f
            out += startHeld(late: r.late)
            f = wall ?? f
        }
        if let a = f.advance, let at = a.at, at <= now {
            f.advance?.at = nil
            wall = f
            out += advance(from: a.item, to: a.to, at: now)
            f = wall ?? f
        }
        if f.sampleAt <= now {
            f.sampleAt = now + Self.sampleEvery
            out.append(.sampleGroup)
        }
        wall = f
        return out
    }

    /// An item's first frame on a wall's node: how long its load took, and whether it waits for
    /// its instant (the next sample, asked now, says).
    mutating func followFirstFrame(at now: Double) -> [PlaybackEffect] {
        guard var f = wall else { return [] }
        if let asked = f.advancedAt {
            f.advancedAt = nil
            f.loadTimes = Array((f.loadTimes + [now - asked]).suffix(8))
        }
        f.releaseCheck = true
        wall = f
        return [.sampleGroup]
    }

    /// A step on this node: the schedule is left alone until its new round is announced (a
    /// leader says it at the new item's first frame).
    mutating func holdFollowing(at now: Double) {
        if wall?.announces == true { wall?.stepped = true }
        guard let anchor = wall?.lastAnchor else {
            wall?.held = (nil, now + 2)
            return
        }
        wall?.held = (anchor, now + 2)
    }

    /// One sample: a leader's step said, a held item started at its instant, the next item asked
    /// ahead, the lengths probed, the schedule laid out and the follower's correction carried out.
    mutating func followSample(_ sample: GroupSample, at now: Double) -> [PlaybackEffect] {
        guard wall != nil else { return [] }
        var s = sample
        wall?.lastAnchor = s.anchor
        var out = sayStep(&s)
        out += releaseHeldStart(s, at: now)
        out += advanceAhead(s, at: now)
        guard let lengths = scheduledLengths(into: &out), let schedule = layOut(lengths, s, into: &out) else {
            return out
        }
        return out + correct(s, on: schedule, at: now)
    }

    /// A leader's step, at the item's first frame: the group plays the item stepped to from now,
    /// this node too (`s` takes the new anchor: the shell says it after this sample).
    private mutating func sayStep(_ s: inout GroupSample) -> [PlaybackEffect] {
        guard let f = wall, f.stepped, f.releaseCheck, let index = playingIndex, let groupTime = s.groupTime else {
            return []
        }
        let anchor = ScheduleAnchor(item: index, at: (groupTime * 1000).rounded() / 1000)
        wall?.stepped = false
        wall?.inForce = anchor
        wall?.lastAnchor = anchor
        wall?.held = nil
        s.anchor = anchor
        return [.announce(anchor)]
    }

    /// Each item's length in the schedule; `nil` while one is not known (its probe asked) or
    /// cannot be (the problem said: a live stream, a file without a length).
    private mutating func scheduledLengths(into out: inout [PlaybackEffect]) -> [Double]? {
        guard let f = wall, !items.isEmpty else { return nil }
        var lengths: [Double] = []
        var missing: [String] = []
        for item in items {
            switch scheduledLength(of: item) {
            case .live:
                let problem = "\(named(item)) is a live stream: a wall follows files and images only"
                wall?.problem = problem
                return nil
            case .fixed(let d): lengths.append(d)
            case .probe:
                switch f.lengths[item] {
                case .some(.some(let d)): lengths.append(d)
                case .some(.none):
                    let problem = "\(named(item)) has no length mpv can read: the wall cannot schedule it"
                    wall?.problem = problem
                    return nil
                case .none: missing.append(item)
                }
            }
        }
        guard missing.isEmpty else {
            if !f.probing {
                wall?.probing = true
                out.append(.probeLengths(missing))
            }
            return nil
        }
        wall?.problem = nil
        return lengths
    }

    /// The schedule from the anchor in force (a newer word takes over near its item's start, past
    /// its load time, or past it), a leader's next item said a second ahead, the follower on it.
    private mutating func layOut(
        _ lengths: [Double], _ s: GroupSample, into out: inout [PlaybackEffect]
    ) -> ClockSchedule? {
        guard var f = wall else { return nil }
        defer { wall = f }
        if let announced = s.anchor, announced != f.inForce {
            let due = announced.at - f.loadMargin - 0.05
            if f.inForce == nil || s.groupTime.map({ $0 >= due }) ?? true { f.inForce = announced }
        }
        guard let anchor = f.inForce, let schedule = ClockSchedule(durations: lengths, anchor: anchor) else {
            return nil
        }
        if f.announces, let groupNow = s.groupTime {
            let next = schedule.next(after: groupNow)
            if next.at - groupNow <= 1 { out.append(.announce(next)) }
        }
        if f.follower == nil {
            f.follower = ClockFollower(schedule: schedule)
        } else if f.follower?.schedule != schedule {
            f.follower?.rejoin(schedule)
        }
        return schedule
    }

    /// The follower's correction for the sample, unless a step of this node's holds it (until
    /// its anchor is said, 2 s at most).
    private mutating func correct(_ s: GroupSample, on schedule: ClockSchedule, at now: Double) -> [PlaybackEffect] {
        guard var f = wall else { return [] }
        defer { wall = f }
        if let held = f.held {
            if s.anchor == held.anchor, now < held.until { return [] }
            f.held = nil
        }
        guard let groupTime = s.groupTime else { return [] }
        let sample = ClockFollower.Sample(
            item: playingIndex, position: s.position, groupTime: groupTime, paused: s.paused,
            frame: s.fps.map { 1 / $0 })
        switch f.follower?.follow(sample, at: now) {
        case .speed(let speed)?: return [.mpv(.set("speed", .double(speed)))]
        case .seek(let position)?: return [.mpv(.command(["seek", "\(position)", "absolute+exact"]))]
        case .play(let item, _)?: return playEntry(of: items[item])
        case nil: return []
        }
    }

    /// The lengths mpv read (``PlaybackEffect/probeLengths(_:)``): `nil` for a file that has none.
    mutating func lengthsProbed(_ found: [String: Double?]) {
        guard var f = wall else { return }
        for (item, length) in found { f.lengths[item] = .some(length) }
        f.probing = false
        wall = f
    }

    /// An item held at its first frame (``PlayerSettings/holdStarts``) is started at the instant
    /// its schedule starts it: at once when that has passed (a late node, a join: the follower's
    /// seeks take the rest up when it is more than its join's 50 ms), when it is more than 2 s
    /// ahead (another item than the schedule's: the follower loads that), or when no schedule is
    /// known. Looked at after each item's first frame and at each sample; the screen's own pause
    /// is left alone.
    private mutating func releaseHeldStart(_ s: GroupSample, at now: Double) -> [PlaybackEffect] {
        guard var f = wall else { return [] }
        f.releaseCheck = false
        guard settings.holdStarts, f.release == nil, !screenPaused, s.paused, !s.idle else {
            wall = f
            return []
        }
        var wait = 0.0
        if clipState != nil {
            // A clip of the group's starts at its instant; another clip at once.
            if let at = f.clipAt, let groupTime = s.groupTime { wait = min(2, at - groupTime) }
            f.clipAt = nil
        } else if let index = playingIndex, let follower = f.follower, f.problem == nil, let groupTime = s.groupTime,
            follower.schedule.durations.indices.contains(index)
        {
            // The anchor in force may be newer than the follower's schedule (the leader's next item).
            let schedule =
                f.inForce.flatMap { ClockSchedule(durations: follower.schedule.durations, anchor: $0) }
                ?? follower.schedule
            let early = schedule.error(item: index, position: 0, at: groupTime)
            wait = early > 2 ? 0 : early
        }
        f.advance = nil
        wall = f
        if wait > 0 {
            wall?.release = (now + wait, 0)
            return []
        }
        return startHeld(late: -wait)
    }

    /// The held item starts now, `late` seconds after its instant.
    private mutating func startHeld(late: Double) -> [PlaybackEffect] {
        guard wall != nil, !screenPaused else { return [] }
        wall?.lastStart = late
        if let follower = wall?.follower, late > follower.joinWithin { wall?.follower?.rejoin() }
        return [.mpv(.set("pause", .flag(false)))]
    }

    /// The item playing ends on the schedule soon: the next is asked for its load margin before
    /// that end (``WallFollowing/loadMargin``), so that it waits, opened and held at its first
    /// frame, for its instant (the item's last frames, that long, are not shown). One item round
    /// and round is loaded again the same way.
    private mutating func advanceAhead(_ s: GroupSample, at now: Double) -> [PlaybackEffect] {
        guard let f = wall, settings.holdStarts, !screenPaused, let index = playingIndex, f.advance?.item != index,
            f.release == nil, !s.paused, let follower = f.follower, follower.joined, let groupTime = s.groupTime
        else { return [] }
        // The leader's next item, said ahead, or this node's own schedule's next.
        let upcoming = s.anchor.flatMap { $0 != f.inForce && $0.at > groupTime ? $0 : nil }
        guard let left = upcoming.map({ $0.at - groupTime }) ?? follower.schedule.remaining(item: index, at: groupTime)
        else { return [] }
        let wait = left - f.loadMargin
        guard wait < 0.5 else { return [] }  // asked again at the next sample
        guard wait > 0 else {
            wall?.advance = (index, nil, upcoming)
            return advance(from: index, to: upcoming, at: now)
        }
        wall?.advance = (index, now + wait, upcoming)
        return []
    }

    private mutating func advance(from index: Int, to upcoming: ScheduleAnchor?, at now: Double) -> [PlaybackEffect] {
        guard !screenPaused, playingIndex == index else {
            wall?.advance = nil
            return []
        }
        wall?.advancedAt = now
        guard let upcoming else { return [.mpv(.step(.next))] }
        // The leader's item (another playlist's order or lengths may differ): it and its time.
        wall?.inForce = upcoming
        return items.isEmpty ? [] : playEntry(of: items[upcoming.item % items.count])
    }

    /// Plays `item`'s entry now (mpv's events tell the core).
    private func playEntry(of item: String) -> [PlaybackEffect] {
        guard let entry = entries.first(where: { $0.path == item })?.id else { return [] }
        return [.mpv(.play(entry: entry))]
    }
}
