/// Holds one node's playback to a ``ClockSchedule``: fed samples of what plays and where, with
/// the group's time they were taken at, it says what to correct. Far off (a node that starts late,
/// the wrong item, a stall): a seek or a load, repeated a few times after a start until the node is
/// within ``joinWithin`` (a seek takes time of its own, learnt from the one before); after that,
/// only small speed changes (within ``maxAdjust``), unless it falls ``seekPast`` behind or ahead.
/// Pure: times are the caller's, in seconds.
public struct ClockFollower: Sendable, Hashable {
    /// What plays when the sample is taken.
    public struct Sample: Sendable, Hashable {
        /// The item's index in the schedule; `nil` while nothing plays (loading, idle).
        public var item: Int?
        /// The position in it, in seconds.
        public var position: Double?
        /// The group's time at the sample.
        public var groupTime: Double
        /// Paused (the screen is off): nothing is corrected.
        public var paused: Bool
        /// How long one frame shows (1/fps), when known. mpv's position is the frame on screen's
        /// time, which the picture runs ahead of until the next: by half a frame on the whole.
        public var frame: Double?

        public init(item: Int?, position: Double?, groupTime: Double, paused: Bool = false, frame: Double? = nil) {
            self.item = item
            self.position = position
            self.groupTime = groupTime
            self.paused = paused
            self.frame = frame
        }
    }

    /// What the player is to do.
    public enum Correction: Sendable, Hashable, CustomStringConvertible {
        /// Play at this speed (1 ± at most ``maxAdjust``).
        case speed(Double)
        /// Seek in the item playing to this position.
        case seek(Double)
        /// Play another item, from this position.
        case play(item: Int, position: Double)

        public var description: String {
            switch self {
            case .speed(let s): "speed \(Self.rounded(s, 4))"
            case .seek(let p): "seek to \(Self.rounded(p, 3)) s"
            case .play(let item, let p): "item \(item + 1) from \(Self.rounded(p, 3)) s"
            }
        }

        static func rounded(_ v: Double, _ places: Int) -> String {
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            return "\((v * scale).rounded() / scale)"
        }
    }

    public var schedule: ClockSchedule
    /// The most the speed is changed by (0.01: 1 %).
    public var maxAdjust = 0.01
    /// The speed change per second of error (0.5: 20 ms off plays 1 % slower or faster).
    public var gain = 0.5
    /// Errors below this are left alone.
    public var deadband = 0.003
    /// Past this error a joined node seeks.
    public var seekPast = 0.5
    /// After a start, a node seeks until it is this close.
    public var joinWithin = 0.05
    /// At most this many seeks for one join.
    public var joinSeeks = 3
    /// After a seek or a load, samples are left alone for this long (mpv's position jumps about).
    public var settle = 0.6
    /// How many errors the speed is decided on (mpv's position moves by whole frames).
    public var window = 8
    /// A step of the group's clock against the caller's larger than this (a first estimate, a
    /// new reference, a clock set) is a new join.
    public var clockStep = 0.02

    /// The speed last asked for.
    public private(set) var speed = 1.0
    /// The last error measured: ahead (positive) or behind the schedule, in seconds.
    public private(set) var lastError: Double?
    /// The last correction asked for.
    public private(set) var lastCorrection: Correction?
    /// Within ``joinWithin`` since the last start (or out of seeks to get there).
    public private(set) var joined = false
    /// What a seek is aimed ahead by: the time a seek itself took, learnt.
    public private(set) var lead = 0.0
    private var seeksLeft: Int
    private var quietUntil = -Double.infinity
    private var errors: [Double] = []
    private var seeking = false
    /// The group's time less the caller's at the last sample.
    private var skew: Double?

    public init(schedule: ClockSchedule) {
        self.schedule = schedule
        seeksLeft = joinSeeks
    }

    /// A new start (a new schedule, the player restarted): the next sample joins again.
    public mutating func rejoin(_ schedule: ClockSchedule? = nil) {
        if let schedule { self.schedule = schedule }
        joined = false
        seeksLeft = joinSeeks
        errors = []
        seeking = false
        quietUntil = -Double.infinity
    }

    /// The correction for `sample`, taken at `now` (the caller's clock); `nil`: none needed.
    public mutating func follow(_ sample: Sample, at now: Double) -> Correction? {
        guard let item = sample.item, let position = sample.position, !sample.paused,
            schedule.durations.indices.contains(item)
        else {
            errors = []
            return nil
        }
        let skew = sample.groupTime - now
        defer { self.skew = skew }
        if let last = self.skew, abs(skew - last) > clockStep { rejoin() }
        guard now >= quietUntil else { return nil }
        let halfFrame = sample.frame.map { $0 > 0 && $0 < 1 ? $0 / 2 : 0 } ?? 0
        let e = schedule.error(item: item, position: position + halfFrame, at: sample.groupTime)
        lastError = e
        if seeking {
            // What the last seek missed by: the next one aims that much further.
            lead = max(0, min(seekPast, lead - e))
            seeking = false
        }
        let far = abs(e) > seekPast
        let joining = !joined && abs(e) > joinWithin && seeksLeft > 0
        if far || joining {
            let target = schedule.at(sample.groupTime + lead)
            let correction: Correction =
                target.item == item ? .seek(target.position) : .play(item: target.item, position: target.position)
            seeking = target.item == item
            // A load (another item) is not one of the join's seeks: the seeks after it are.
            if !seeking {
                joined = false
            } else if joining {
                seeksLeft -= 1
            } else {
                joined = false
                seeksLeft = joinSeeks - 1
            }
            quietUntil = now + settle
            errors = []
            lastCorrection = correction
            return correction
        }
        if !joined { joined = true }
        errors.append(e)
        if errors.count > window { errors.removeFirst(errors.count - window) }
        let mean = errors.reduce(0, +) / Double(errors.count)
        var next = abs(mean) < deadband ? 1 : 1 - max(-maxAdjust, min(maxAdjust, gain * mean))
        next = (next * 10_000).rounded() / 10_000
        guard next != speed else { return nil }
        speed = next
        lastCorrection = .speed(next)
        return .speed(next)
    }
}
