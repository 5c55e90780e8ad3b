import Blocking
import Foundation
import MPV
import Playback
import Sync

/// A wall's node: the player follows the group's schedule (``ClockSchedule``: the playlist's items
/// one after the other from the Unix epoch, on the group's clock), sampled every 0.21 s and
/// corrected by ``ClockFollower``.
struct Following {
    /// The group's time now (Unix seconds); `nil` while it is not known yet.
    let groupTime: @Sendable () -> Double?
    /// When the playlist's round started, in group time; `nil` while it is not known yet.
    let origin: @Sendable () -> Double?
    var task: Task<Void, Never>
    var follower: ClockFollower?
    /// Each file's length, as mpv read it; `nil`: it has none (it cannot be followed).
    var lengths: [String: Double?] = [:]
    var probing = false
    var problem: String?
    /// A step of this node's (it leads): no correction until the new round is announced (its
    /// origin changes), 2 s at the most.
    var held: (origin: Double?, until: Double)?
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
}

extension Player {
    /// Follows a wall's schedule on the group's clock (`groupTime`), its round started at
    /// `origin` (the epoch by default), or stops following (`nil`: the speed goes back to 1).
    public func follow(groupTime: (@Sendable () -> Double?)?, origin: @escaping @Sendable () -> Double? = { 0 }) {
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
        setFollowing(Following(groupTime: groupTime, origin: origin, task: task))
    }

    /// How the player follows its wall; `nil` when it does not.
    public var followStatus: FollowStatus? {
        guard let f = currentFollowing else { return nil }
        return FollowStatus(
            error: f.follower?.lastError, correction: f.follower?.lastCorrection?.description,
            speed: f.follower?.speed ?? 1, problem: f.problem)
    }

    /// The origin of a round whose item playing now started at `groupTime` (a leader's step: the
    /// group plays on from there); `nil` when the playlist is not followed or not known.
    public func originForItemStartingNow(at groupTime: Double) -> Double? {
        guard let schedule = currentFollowing?.follower?.schedule,
            let index = playingItem.flatMap({ playlistItems.firstIndex(of: $0) }),
            schedule.durations.indices.contains(index)
        else { return nil }
        return groupTime - schedule.offset(of: index)
    }

    /// A step is under way on this node: the schedule is left alone until its new round is announced.
    func holdFollowing() {
        guard var f = currentFollowing else { return }
        f.held = (f.origin(), ProcessInfo.processInfo.systemUptime + 2)
        setFollowing(f)
    }

    /// One sample, and its correction carried out.
    func followStep() async {
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
        guard let origin = f.origin(), let schedule = ClockSchedule(durations: lengths, origin: origin) else {
            setFollowing(f)
            return
        }
        if f.follower == nil {
            f.follower = ClockFollower(schedule: schedule)
        } else if f.follower?.schedule != schedule {
            f.follower?.rejoin(schedule)
        }
        if let held = f.held {
            if f.origin() == held.origin, ProcessInfo.processInfo.systemUptime < held.until {
                setFollowing(f)
                return
            }
            f.held = nil
        }
        let handle = mpvHandle
        let index = playingItem.flatMap { items.firstIndex(of: $0) }
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
