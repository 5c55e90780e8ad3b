import Testing

@testable import Health

@Suite struct VerdictTests {
    /// A session that plays a moving picture, sampled once a second up to `now`.
    static func playing(
        now: Double = 1000, moving: Bool = true,
        _ picture: (Double) -> (Double, UInt64) = {
            (200, UInt64($0))
        }
    ) -> HealthFacts {
        var f = HealthFacts(session: true, now: now)
        f.moving = moving
        f.pictures = stride(from: now - 20, through: now, by: 1).map { t in
            let (luma, digest) = picture(t)
            return PictureSample(time: t, peakLuma: luma, digest: digest)
        }
        f.display = .working
        f.sensor = .working
        f.starts = [now - 3600]
        return f
    }

    let rules = HealthRules()

    @Test func aNodeThatPlaysIsHealthy() {
        #expect(rules.verdict(Self.playing()) == .healthy)
        #expect(rules.verdict(Self.playing()).exitCode == 0)
        // A still picture (a slide) is no fault when nothing moving plays.
        #expect(rules.verdict(Self.playing(moving: false) { _ in (200, 7) }) == .healthy)
    }

    @Test func eachFaultIsSaidInOneLine() {
        let black = rules.verdict(Self.playing { _ in (12, 1) })
        #expect(black == .unhealthy("the screen has been black for 10 s"))
        #expect(black.exitCode == 1)
        // Black for a moment (a fade) is no fault.
        #expect(rules.verdict(Self.playing { t in (t > 995 ? 12 : 200, UInt64(t)) }) == .healthy)
        let frozen = rules.verdict(Self.playing { _ in (180, 42) })
        #expect(frozen == .unhealthy("the picture has been frozen for 10 s while a video plays"))
        var display = Self.playing()
        display.display = .failing("HDMI-A-1 is not connected")
        #expect(rules.verdict(display) == .unhealthy("the display: HDMI-A-1 is not connected"))
        var sensor = Self.playing()
        sensor.sensor = .failing("no reading for 30 s (iio:device0)")
        #expect(rules.verdict(sensor) == .unhealthy("the sensor: no reading for 30 s (iio:device0)"))
        var loop = Self.playing()
        loop.starts = [700, 800, 900, 990]
        #expect(rules.verdict(loop) == .unhealthy("a restart loop: started 3 times in the last 5 minutes"))
        var hot = Self.playing()
        hot.hardware = ["under-voltage now"]
        #expect(rules.verdict(hot) == .unhealthy("the hardware: under-voltage now"))
    }

    /// Samples every 2 s, as the player takes them, the newest up to 2 s old: black is found.
    @Test func samplesTwoSecondsApartAreEnough() {
        var f = HealthFacts(session: true, now: 1001.9)
        f.pictures = stride(from: 980.0, through: 1000, by: 2).map { PictureSample(time: $0, peakLuma: 10, digest: 1) }
        #expect(rules.verdict(f) == .unhealthy("the screen has been black for 10 s"))
        // A still video moves on: the same picture, the position running, is no frozen one.
        f.moving = true
        f.pictures = stride(from: 980.0, through: 1000, by: 2).map {
            PictureSample(time: $0, peakLuma: 200, digest: 1, position: $0 - 900)
        }
        #expect(rules.verdict(f) == .healthy)
        // Samples that stopped 4 s ago cover nothing now.
        f.now = 1004
        #expect(rules.verdict(f) == .healthy)
    }

    @Test func withoutASessionOrASampleItCannotTell() {
        let none = rules.verdict(HealthFacts(session: false, now: 0))
        #expect(none == .unknown("no session answers (is upright play running?)"))
        #expect(none.exitCode == 2)
        var stale = Self.playing()
        stale.now += 60
        #expect(rules.verdict(stale) == .unknown("no picture sampled in the last 10 s"))
    }
}
