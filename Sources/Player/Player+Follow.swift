import Blocking
import Foundation
import MPV
import Playback
public import Sync

/// A wall's node: the player follows the group's schedule (``ClockSchedule``: the playlist's items
/// one after the other from the Unix epoch, on the group's clock), sampled every 0.21 s and
/// corrected by ``ClockFollower``.
struct Following {
    /// The group's time now (Unix seconds); `nil` while it is not known yet.
    let groupTime: @Sendable () -> Double?
    /// Which item starts when (group time); `nil` while it is not known yet.
    let anchor: @Sendable () -> ScheduleAnchor?
    /// A leader's word to the group: its next item and when it starts, said a second ahead.
    let announce: (@Sendable (ScheduleAnchor) -> Void)?
    /// The anchor the schedule is laid out from now; a newer one takes over near its item's
    /// start (``Player/advanceAhead()``), or at once when that has passed.
    var inForce: ScheduleAnchor?
    var task: Task<Void, Never>
    var follower: ClockFollower?
    /// Each file's length, as mpv read it; `nil`: it has none (it cannot be followed).
    var lengths: [String: Double?] = [:]
    var probing = false
    var problem: String?
    /// A step of this node's (it leads): no correction until its anchor is announced, 2 s at the most.
    var held: (anchor: ScheduleAnchor?, until: Double)?
    /// An item held at its first frame is to be started (``Player/releaseHeldStart()``) by this task.
    var release: Task<Void, Never>?
    /// How far from its instant the last held item started (positive: late), in seconds.
    var lastStart: Double?
    /// The next item is asked for a little before the one playing ends on the schedule
    /// (``Player/advanceAhead()``): by this task, for the item at this index.
    var advance: (item: Int, task: Task<Void, Never>)?
    /// When the last advance was asked (uptime), and the last loads' times: from the ask to the
    /// next item's first frame.
    var advancedAt: Double?
    var loadTimes: [Double] = []
    /// The group time the next clip starts at (a clip of the group's).
    var clipAt: Double?

    /// How long before an item's scheduled end the next is asked for: the longest of the last
    /// eight loads, and 20 ms more (0.15 s until one is measured; 0.5 s at most).
    var loadMargin: Double { loadTimes.isEmpty ? 0.15 : min(0.5, (loadTimes.max() ?? 0) + 0.02) }
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

extension Player {
    /// Follows a wall's schedule on the group's clock (`groupTime`), laid out from `anchor` (the
    /// first item at the epoch by default), or stops following (`nil`: the speed goes back to 1).
    /// A leader says its next item ahead through `announce`.
    public func follow(
        groupTime: (@Sendable () -> Double?)?,
        anchor: @escaping @Sendable () -> ScheduleAnchor? = { ScheduleAnchor(item: 0, at: 0) },
        announce: (@Sendable (ScheduleAnchor) -> Void)? = nil
    ) {
        stopFollowing()
        guard let groupTime else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                await self?.followStep()
                // Not a whole number of frames at 24, 25, 30, 50 or 60 fps: samples fall on every
                // part of a frame, and the mean of their errors is the picture's.
                try? await Task.sleep(for: .milliseconds(210))
            }
        }
        setFollowing(Following(groupTime: groupTime, anchor: anchor, announce: announce, task: task))
    }

    /// How the player follows its wall; `nil` when it does not.
    public var followStatus: FollowStatus? {
        guard let f = currentFollowing else { return nil }
        return FollowStatus(
            error: f.follower?.lastError, correction: f.follower?.lastCorrection?.description,
            speed: f.follower?.speed ?? 1, problem: f.problem, lastStart: f.lastStart)
    }

    /// The item playing now, starting at `groupTime` (a leader's step: the group plays on from
    /// there); `nil` when the playlist is not followed.
    public func anchorForItemStartingNow(at groupTime: Double) -> ScheduleAnchor? {
        guard currentFollowing != nil, let index = playingIndex else {
            return nil
        }
        return ScheduleAnchor(item: index, at: (groupTime * 1000).rounded() / 1000)
    }

    /// A step is under way on this node: the schedule is left alone until its new round is announced.
    func holdFollowing() {
        guard var f = currentFollowing else { return }
        f.held = (f.anchor(), ProcessInfo.processInfo.systemUptime + 2)
        setFollowing(f)
    }

    /// An item held at its first frame (``PlayerSettings/holdStarts``) is started at the instant
    /// its schedule starts it: at once when that has passed (a late node, a join: the follower's
    /// seeks take the rest up when it is more than its join's 50 ms), when it is more than 2 s
    /// ahead (another item than the schedule's: the follower loads that), or when no schedule is
    /// known. Called at each item's first frame and each sample; the screen's own pause is left alone.
    func releaseHeldStart() {
        guard var f = currentFollowing, holdsStarts, f.release == nil, !screenPaused, !isShuttingDown else { return }
        let handle = mpvHandle
        guard handle.value(.pause) == true, !(handle.value(.idleActive) ?? false) else { return }
        let index = playingIndex
        var wait = 0.0
        if playsClip {
            // A clip of the group's starts at its instant; another clip at once.
            if let at = f.clipAt, let groupTime = f.groupTime() { wait = min(2, at - groupTime) }
            f.clipAt = nil
        } else if let index, let follower = f.follower, f.problem == nil, let groupTime = f.groupTime(),
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
        f.release = Task { [weak self] in
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            await self?.startHeld(late: wait > 0 ? 0 : -wait)
        }
        setFollowing(f)
    }

    /// The next clip is the group's: it starts at `groupTime` (held at its first frame until then).
    public func startClip(at groupTime: Double) {
        guard var f = currentFollowing else { return }
        f.clipAt = groupTime
        setFollowing(f)
    }

    /// An item's first frame after an advance: how long its load took, for the next margin.
    func loaded() {
        guard var f = currentFollowing, let asked = f.advancedAt else { return }
        f.advancedAt = nil
        f.loadTimes = (f.loadTimes + [ProcessInfo.processInfo.systemUptime - asked]).suffix(8)
        setFollowing(f)
    }

    /// The item playing ends on the schedule soon: the next is asked for its load margin before
    /// that end (``Following/loadMargin``), so that it waits, opened and held at its first frame,
    /// for its instant (the item's last frames, that long, are not shown). One item round and
    /// round is loaded again the same way.
    func advanceAhead() {
        guard var f = currentFollowing, holdsStarts, !screenPaused, !isShuttingDown,
            let index = playingIndex, f.advance?.item != index,
            f.release == nil, mpvHandle.value(.pause) != true, let follower = f.follower, follower.joined,
            let groupTime = f.groupTime()
        else { return }
        // The leader's next item, said ahead, or this node's own schedule's next.
        let upcoming = f.anchor().flatMap { $0 != f.inForce && $0.at > groupTime ? $0 : nil }
        guard let left = upcoming.map({ $0.at - groupTime }) ?? follower.schedule.remaining(item: index, at: groupTime)
        else { return }
        let wait = left - f.loadMargin
        guard wait < 0.5 else { return }  // asked again at the next sample
        f.advance?.task.cancel()
        f.advance = (
            index,
            Task { [weak self] in
                if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                await self?.advance(from: index, to: upcoming)
            }
        )
        setFollowing(f)
    }

    private func advance(from index: Int, to upcoming: ScheduleAnchor?) {
        guard var f = currentFollowing, f.advance?.item == index else { return }
        defer { setFollowing(f) }
        guard !Task.isCancelled, !screenPaused, !isShuttingDown,
            playingIndex == index
        else {
            f.advance = nil
            return
        }
        f.advancedAt = ProcessInfo.processInfo.systemUptime
        if let upcoming {
            // The leader's item (another playlist's order or lengths may differ): it and its time.
            f.inForce = upcoming
            let items = playlistItems
            if !items.isEmpty { playEntry(of: items[upcoming.item % items.count]) }
        } else {
            _ = try? mpvHandle.command(["playlist-next", "force"])
        }
    }

    /// The held item starts now, `late` seconds after its instant.
    private func startHeld(late: Double) {
        guard var f = currentFollowing else { return }
        f.release = nil
        if !screenPaused, !isShuttingDown {
            _ = try? mpvHandle.set("pause", .flag(false))
            f.lastStart = late
            if let follower = f.follower, late > follower.joinWithin { f.follower?.rejoin() }
        }
        setFollowing(f)
    }

    /// One sample, and its correction carried out.
    func followStep() async {
        releaseHeldStart()
        advanceAhead()
        guard var f = currentFollowing, !isShuttingDown else { return }
        let items = playlistItems
        guard !items.isEmpty else { return }
        var lengths: [Double] = []
        var missing: [String] = []
        for item in items {
            switch scheduledLength(of: item) {
            case .live:
                f.problem = "\(item) is a live stream: a wall follows files and images only"
                setFollowing(f)
                return
            case .fixed(let d): lengths.append(d)
            case .probe:
                switch f.lengths[item] {
                case .some(.some(let d)): lengths.append(d)
                case .some(.none):
                    f.problem = "\(item) has no length mpv can read: the wall cannot schedule it"
                    setFollowing(f)
                    return
                case .none: missing.append(item)
                }
            }
        }
        if !missing.isEmpty {
            guard !f.probing else { return }
            f.probing = true
            setFollowing(f)
            let (handle, asked) = (mpvHandle, missing)
            let found = await Blocking.run {
                asked.map { item in (item, (try? handle.probeLength(item, timeout: 10)) ?? nil) }
            }
            guard var now = currentFollowing else { return }
            for (item, length) in found { now.lengths[item] = .some(length) }
            now.probing = false
            setFollowing(now)
            return
        }
        f.problem = nil
        let groupNow = f.groupTime()
        if let announced = f.anchor(), announced != f.inForce {
            // A new word: near its item's start (past its load time) or past it, it takes over.
            let due = announced.at - f.loadMargin - 0.05
            if f.inForce == nil || groupNow.map({ $0 >= due }) ?? true { f.inForce = announced }
        }
        guard let anchor = f.inForce, let schedule = ClockSchedule(durations: lengths, anchor: anchor) else {
            setFollowing(f)
            return
        }
        // A leader says its next item a second ahead.
        if let announce = f.announce, let groupNow {
            let next = schedule.next(after: groupNow)
            if next.at - groupNow <= 1 { announce(next) }
        }
        if f.follower == nil {
            f.follower = ClockFollower(schedule: schedule)
        } else if f.follower?.schedule != schedule {
            f.follower?.rejoin(schedule)
        }
        if let held = f.held {
            if f.anchor() == held.anchor, ProcessInfo.processInfo.systemUptime < held.until {
                setFollowing(f)
                return
            }
            f.held = nil
        }
        let handle = mpvHandle
        let index = playingIndex
        let position = handle.value(.timePosition)
        let paused = handle.value(.pause) ?? false
        guard let groupTime = f.groupTime() else {
            setFollowing(f)
            return
        }
        let fps = handle.value(.containerFPS)
        let sample = ClockFollower.Sample(
            item: index, position: position, groupTime: groupTime, paused: paused, frame: fps.map { 1 / $0 })
        let correction = f.follower?.follow(sample, at: ProcessInfo.processInfo.systemUptime)
        setFollowing(f)
        guard let correction else { return }
        switch correction {
        case .speed(let speed): _ = try? handle.set("speed", .double(speed))
        case .seek(let position): _ = try? handle.command(["seek", "\(position)", "absolute+exact"])
        case .play(let item, _): playEntry(of: items[item])
        }
    }
}
