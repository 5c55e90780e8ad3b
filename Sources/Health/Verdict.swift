/// A picture on screen, sampled: how bright, and whether it is the same as the sample before.
public struct PictureSample: Sendable, Hashable {
    /// Seconds (the system clock's), when it was taken.
    public var time: Double
    /// The brightest pixel's luma, 0…255: a black screen has none above ``HealthRules/blackLuma``.
    public var peakLuma: Double
    /// A digest of the picture: two samples that are alike are the same picture.
    public var digest: UInt64
    /// The player's position then (`nil`: nothing with a position plays): a still video moves
    /// on, a frozen one does not.
    public var position: Double?

    public init(time: Double, peakLuma: Double, digest: UInt64, position: Double? = nil) {
        self.time = time
        self.peakLuma = peakLuma
        self.digest = digest
        self.position = position
    }

    /// A sample of a picture of 4-byte pixels (r, g, b, unused; `stride` bytes a row), taken at
    /// `time`: its brightest luma (BT.601) and a digest (FNV-1a) over a grid of about 64 × 64
    /// points, so that a picture of any size costs the same.
    public init(time: Double, rgb0 pixels: [UInt8], width: Int, height: Int, stride: Int, position: Double? = nil) {
        var peak = 0.0
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let (dx, dy) = (max(1, width / 64), max(1, height / 64))
        for y in Swift.stride(from: dy / 2, to: height, by: dy) {
            for x in Swift.stride(from: dx / 2, to: width, by: dx) {
                let i = y * stride + x * 4
                guard i + 2 < pixels.count else { continue }
                let (r, g, b) = (Double(pixels[i]), Double(pixels[i + 1]), Double(pixels[i + 2]))
                peak = max(peak, 0.299 * r + 0.587 * g + 0.114 * b)
                // Coarse values: a picture re-encoded or redrawn alike is the same picture.
                for c in [pixels[i] >> 3, pixels[i + 1] >> 3, pixels[i + 2] >> 3] {
                    hash = (hash ^ UInt64(c)) &* 0x100_0000_01b3
                }
            }
        }
        self.init(time: time, peakLuma: peak, digest: hash, position: position)
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
    /// Why no picture could be sampled lately (mpv does not answer, nothing shows); `nil` when
    /// the last try gave one.
    public var sampling: String?
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
    /// Samples may be this far apart (the player takes one every 2 s).
    public var sampleGap = 3.0
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
            if let why = facts.sampling { return .unhealthy("the picture is frozen: \(why)") }
            return .unknown("no picture sampled in the last \(Int(holdSeconds)) s")
        }
        return .healthy
    }

    /// Black for `holdSeconds`, or (while something moving plays) the same picture as long: every
    /// sample of the last `holdSeconds` so, and the samples covering them (the first within
    /// `sampleGap` of the window's start, the last within `sampleGap` of now, three at least).
    func pictureFault(_ facts: HealthFacts) -> String? {
        let window = facts.pictures.filter { $0.time >= facts.now - holdSeconds && $0.time <= facts.now }
        guard window.count >= 3, let first = window.first, let last = window.last,
            first.time <= facts.now - holdSeconds + sampleGap, facts.now - last.time <= sampleGap
        else { return nil }
        if window.allSatisfy({ $0.peakLuma <= blackLuma }) {
            return "the screen has been black for \(Int(holdSeconds)) s"
        }
        // The same picture, and the player's position standing still, while a video plays (a
        // video that shows one still picture moves on: it is not frozen).
        if facts.moving, window.allSatisfy({ $0.digest == first.digest && $0.position == first.position }) {
            return "the picture has been frozen for \(Int(holdSeconds)) s while a video plays"
        }
        return nil
    }
}
