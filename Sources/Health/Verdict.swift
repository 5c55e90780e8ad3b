/// A picture on screen, sampled: how bright, and whether it is the same as the sample before.
public struct PictureSample: Sendable, Hashable {
    /// Seconds (the system clock's), when it was taken.
    public var time: Double
    /// The brightest pixel's luma, 0…255: a black screen has none above ``HealthRules/blackLuma``.
    public var peakLuma: Double
    /// A digest of the picture: two samples that are alike are the same picture.
    public var digest: UInt64

    public init(time: Double, peakLuma: Double, digest: UInt64) {
        self.time = time
        self.peakLuma = peakLuma
        self.digest = digest
    }
}

/// What is known of a node when its health is asked for.
public struct HealthFacts: Sendable, Hashable {
    /// A session answers (`upright play` runs); without one nothing else can be told.
    public var session: Bool
    /// Samples over the last seconds, oldest first.
    public var pictures: [PictureSample] = []
    /// What plays moves by itself (a video or a stream, not a picture, not paused, the screen on).
    public var moving = false
    public var display: Part = .notConfigured
    public var sensor: Part = .notConfigured
    /// When the service started, as far back as the journal or the state directory tells.
    public var starts: [Double] = []
    /// Hardware problems now (under-voltage, throttling, heat, storage errors), in words.
    public var hardware: [String] = []
    public var now: Double

    /// A display or a sensor: not configured, working, or failing with why.
    public enum Part: Sendable, Hashable {
        case notConfigured
        case working
        case failing(String)
    }

    public init(session: Bool, now: Double) {
        self.session = session
        self.now = now
    }
}

/// `upright health`'s answer: 0 healthy, 1 unhealthy (with one line why), 2 cannot tell.
public enum Verdict: Sendable, Hashable, CustomStringConvertible {
    case healthy
    case unhealthy(String)
    case unknown(String)

    public var exitCode: Int32 {
        switch self {
        case .healthy: 0
        case .unhealthy: 1
        case .unknown: 2
        }
    }

    public var description: String {
        switch self {
        case .healthy: "healthy"
        case .unhealthy(let why): "unhealthy: \(why)"
        case .unknown(let why): "cannot tell: \(why)"
        }
    }
}

/// The rules of a health verdict, as values: what counts as black, frozen, a crash loop.
public struct HealthRules: Sendable, Hashable {
    /// No pixel brighter than this: black (16 is video black).
    public var blackLuma = 24.0
    /// Black, or the same picture while something moving plays, this long: a fault.
    public var holdSeconds = 10.0
    /// This many starts within `loopWindow` seconds: a restart loop.
    public var loopStarts = 3
    public var loopWindow = 300.0

    public init() {}

    /// The verdict on `facts`: the first fault found, in the order a person would look (the
    /// session, the restarts, the display, the picture, the sensor, the hardware).
    public func verdict(_ facts: HealthFacts) -> Verdict {
        guard facts.session else { return .unknown("no session answers (is upright play running?)") }
        let recent = facts.starts.filter { $0 > facts.now - loopWindow && $0 <= facts.now }
        if recent.count >= loopStarts {
            return .unhealthy(
                "a restart loop: started \(recent.count) times in the last \(Int(loopWindow / 60)) minutes")
        }
        if case .failing(let why) = facts.display { return .unhealthy("the display: \(why)") }
        if let why = pictureFault(facts) { return .unhealthy(why) }
        if case .failing(let why) = facts.sensor { return .unhealthy("the sensor: \(why)") }
        if let first = facts.hardware.first { return .unhealthy("the hardware: \(first)") }
        guard let last = facts.pictures.last, facts.now - last.time <= holdSeconds else {
            return .unknown("no picture sampled in the last \(Int(holdSeconds)) s")
        }
        return .healthy
    }

    /// Black for `holdSeconds`, or (while something moving plays) the same picture as long.
    func pictureFault(_ facts: HealthFacts) -> String? {
        let window = facts.pictures.filter { $0.time >= facts.now - holdSeconds - 0.001 }
        guard let first = window.first, let last = window.last, last.time - first.time >= holdSeconds - 0.5 else {
            return nil
        }
        if window.allSatisfy({ $0.peakLuma <= blackLuma }) {
            return "the screen has been black for \(Int(last.time - first.time)) s"
        }
        if facts.moving, window.allSatisfy({ $0.digest == first.digest }) {
            return "the picture has been frozen for \(Int(last.time - first.time)) s while a video plays"
        }
        return nil
    }
}
