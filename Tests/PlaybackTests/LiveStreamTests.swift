import Playback
import Testing

/// Live streams as the core takes them, at explicit times: a stream that is cut or stands still
/// shows the slate at once, its server is asked every half second, and the stream plays again as
/// soon as it answers; a live stream never makes the player give up.
@Suite("Live streams")
struct LiveStreamTests {
    static let camera = "rtsp://cam.local/stream1"

    static func drive(
        _ items: [String] = [camera], stallTimeout: Double? = 10, options: [String: ItemOptions] = [:],
        splash: String? = "/s.png"
    ) -> Drive {
        var s = PlayerSettings()
        s.playlist = items
        s.itemOptions = options
        s.splash = splash
        s.stallTimeout = stallTimeout.map { .milliseconds(Int64($0 * 1000)) }
        var d = Drive(s)
        d.scanned = PlaylistScan(
            entries: items.map { .init(entry: $0, items: [.init($0)], description: "\($0): a URL") })
        d.mpv.endless = Set(items.filter { $0.contains("://") })  // a stream plays until it is cut
        return d
    }

    var playing: (Drive) -> String? = { d in d.mpv.playing.flatMap { id in d.mpv.playlist.first { $0.id == id }?.path }
    }

    @Test func aCutStreamShowsTheSlateThenPlaysWithinHalfASecondOfItsServersReturnTenTimes() {
        var d = Self.drive()
        d.send(.start)
        d.advance(2)
        #expect(playing(d) == Self.camera, "\(d.trace.joined(separator: "\n"))")
        for cycle in 0..<10 {
            d.mpv.bad.insert(Self.camera)
            d.mpv.cut(now: d.t)
            d.deliverAll()
            d.advance(0.5)
            #expect(playing(d) == "/s.png", "cycle \(cycle): the slate \(d.trace.suffix(30).joined(separator: "\n"))")
            #expect(d.core.overlays.message?.hasPrefix("Reconnecting to stream1…") == true, "\(d.core.overlays)")
            d.advance(9.5)
            #expect(playing(d) == "/s.png", "cycle \(cycle): still the slate while the server is away")
            #expect(
                d.core.overlays.message?.contains("lost 10 s ago") == true,
                "\(String(describing: d.core.overlays.message))")
            d.mpv.bad.remove(Self.camera)
            d.advance(0.6)
            #expect(playing(d) == Self.camera, "cycle \(cycle): back \(d.trace.suffix(30).joined(separator: "\n"))")
            #expect(d.core.overlays.message == nil)
            d.advance(5)
        }
        #expect(!d.events.contains { if case .gaveUp = $0 { true } else { false } })
    }

    /// Without a splash, a lost stream's slate is mpv's own dark picture with the words over it
    /// (its window never closes on the bare desktop), and the stream replaces it when it returns.
    @Test func withoutASplashALostStreamShowsTheBuiltInSlate() {
        var d = Self.drive(splash: nil)
        d.send(.start)
        d.advance(2)
        d.mpv.bad.insert(Self.camera)
        d.mpv.cut(now: d.t)
        d.deliverAll()
        d.advance(0.5)
        #expect(playing(d) == PlaybackCore.builtInSlate, "\(d.trace.suffix(20).joined(separator: "\n"))")
        #expect(d.core.overlays.message?.hasPrefix("Reconnecting to stream1…") == true)
        d.mpv.bad.remove(Self.camera)
        d.advance(0.6)
        #expect(playing(d) == Self.camera)
        #expect(d.core.overlays.message == nil)
    }

    /// A stream whose picture stands still (an HLS server gone: mpv holds the last frame) is lost
    /// within a second, however many times.
    @Test func aStreamThatStandsStillIsLostNotGivenUpOn() {
        var d = Self.drive()
        d.send(.start)
        d.advance(2)
        for _ in 0..<5 {
            d.mpv.bad.insert(Self.camera)
            // mpv reports a position that no longer moves.
            d.stuck = true
            d.advance(1.25)
            #expect(playing(d) == "/s.png", "\(d.trace.suffix(30).joined(separator: "\n"))")
            d.stuck = false
            d.mpv.bad.remove(Self.camera)
            d.advance(1)
            #expect(playing(d) == Self.camera)
        }
        #expect(!d.events.contains { if case .gaveUp = $0 { true } else { false } })
    }

    /// A stream's server that goes away is heard of before its picture stops (HLS plays out the
    /// segment it holds): the slate at once, the server asked, the stream back; the watch follows
    /// the live stream playing, and a word about another stream changes nothing.
    @Test func aServerThatGoesAwayShowsTheSlateBeforeThePictureStops() {
        var d = Self.drive()
        d.send(.start)
        d.advance(1)
        #expect(playing(d) == Self.camera)
        #expect(d.watchedSource == Self.camera, "\(d.trace.joined(separator: "\n"))")
        d.send(.sourceGone("rtsp://other/stream"))
        #expect(playing(d) == Self.camera)
        for cycle in 0..<3 {
            d.mpv.bad.insert(Self.camera)
            d.send(.sourceGone(Self.camera))
            d.advance(0.05)
            #expect(playing(d) == "/s.png", "cycle \(cycle): \(d.trace.suffix(20).joined(separator: "\n"))")
            #expect(d.watchedSource == nil)
            #expect(d.core.overlays.message?.hasPrefix("Reconnecting to stream1…") == true, "\(d.core.overlays)")
            #expect(d.core.overlays.message?.contains("its server went away") == true)
            // Heard again while lost: nothing more happens.
            d.send(.sourceGone(Self.camera))
            d.advance(3)
            d.mpv.bad.remove(Self.camera)
            for _ in 0..<20 where playing(d) != Self.camera { d.advance(0.5) }
            #expect(playing(d) == Self.camera, "cycle \(cycle): back \(d.trace.suffix(30).joined(separator: "\n"))")
            #expect(d.watchedSource == Self.camera)
        }
        #expect(!d.events.contains { if case .gaveUp = $0 { true } else { false } })
    }

    /// The speed that holds a latency: 1 within 0.1 s of it, 1 % more or less for each 0.2 s
    /// off, never more than 5 %; faster when more is held than wanted.
    @Test func theSpeedThatHoldsALatency() {
        for target in stride(from: 0.5, through: 8, by: 0.5) {
            for off in stride(from: -6.0, through: 6.0, by: 0.01) {
                let speed = PlaybackCore.speed(holding: target, buffered: target + off)
                #expect(speed >= 0.95 && speed <= 1.05)
                if abs(off) <= 0.1 + 1e-9 { #expect(speed == 1) }
                if off > 0.1 + 1e-9 { #expect(speed > 1) }
                if off < -0.1 - 1e-9 { #expect(speed < 1) }
                let bound: Double = max(0.01, abs(off) / 20) + 1e-9
                if abs(off) > 0.1 + 1e-9 { #expect(abs(speed - 1) <= bound) }
            }
        }
        #expect(PlaybackCore.speed(holding: 2, buffered: 3) == 1.05)
        #expect(PlaybackCore.speed(holding: 2, buffered: 2.25) == 1.01)
        #expect(PlaybackCore.speed(holding: 2, buffered: 1.5) == 0.98)
    }

    /// A stream with a latency starts after that much is buffered, and its speed follows what
    /// mpv holds, set only when it changes; one without a latency is never sped up.
    @Test func aLatencyIsHeldBySpeedChanges() {
        var d = Self.drive(options: [Self.camera: ItemOptions(latency: 2)])
        d.send(.start)
        d.advance(1)
        #expect(playing(d) == Self.camera)
        let load = d.commands.first { if case .load(Self.camera, _, _) = $0 { true } else { false } }
        guard case .load(_, _, let options)? = load else {
            Issue.record("no load of the stream")
            return
        }
        #expect(options.contains("cache-pause-wait=2.0") && options.contains("speed=1"), "\(options)")
        #expect(!options.contains("cache-pause=no"))
        func speeds() -> [Double] {
            d.commands.compactMap { if case .set("speed", .double(let v)) = $0 { v } else { nil } }
        }
        d.buffered = 2.05
        d.advance(1)
        #expect(speeds().isEmpty)
        d.buffered = 3
        d.advance(1)
        #expect(speeds() == [1.05])
        d.advance(2)
        #expect(speeds() == [1.05], "set once while it holds")
        d.buffered = 2.3
        d.advance(0.5)
        #expect(speeds() == [1.05, 1.01])
        d.buffered = 1.95
        d.advance(0.5)
        #expect(speeds() == [1.05, 1.01, 1])
        d.buffered = 0.5
        d.advance(0.5)
        #expect(speeds().last == 0.95)

        var plain = Self.drive()
        plain.buffered = 5
        plain.send(.start)
        plain.advance(5)
        #expect(!plain.commands.contains { if case .set("speed", _) = $0 { true } else { false } })
    }

    /// In a rotation, a lost stream is skipped and the rest plays on.
    @Test func inARotationTheRestPlaysOn() {
        var d = Self.drive([Self.camera, "/d/1.png"])
        d.mpv.disk = ["/d/1.png": "a"]
        d.send(.start)
        d.advance(1)
        d.mpv.bad.insert(Self.camera)
        d.mpv.cut(now: d.t)
        d.deliverAll()
        d.advance(1)
        #expect(playing(d) == "/d/1.png", "\(d.trace.suffix(30).joined(separator: "\n"))")
    }
}

extension LiveStreamTests {
    /// A stream that takes long to open (a loaded machine, a slow network) is not lost for it:
    /// until its first frame the ordinary stall timeout applies, not the live one.
    @Test func aStreamStillOpeningIsNotLost() {
        var d = Self.drive()
        d.mpv.slowStart = 3  // its first frame 3 s after it starts
        d.send(.start)
        d.advance(4)
        #expect(playing(d) == Self.camera, "\(d.trace.suffix(30).joined(separator: "\n"))")
        #expect(d.core.overlays.message == nil)
    }
}

extension LiveStreamTests {
    /// In a rotation, a stream with a `duration` plays for that long, then the next item; alone,
    /// it plays on.
    @Test func aStreamInARotationPlaysForItsDuration() {
        var d = Self.drive([Self.camera, "/d/1.png"])
        d.core = PlaybackCore(
            settings: {
                var s = d.core.settings
                s.itemOptions[Self.camera] = ItemOptions(duration: 4)
                return s
            }())
        d.mpv.disk = ["/d/1.png": "a"]
        d.send(.start)
        d.advance(1)
        let started = d.mpv.started.last { $0.path == Self.camera }?.at ?? 0
        d.advance(4.5)
        let next = d.mpv.started.first { $0.path == "/d/1.png" && $0.at > started }?.at
        #expect(next.map { abs($0 - started - 4) < 0.2 } == true, "\(d.trace.suffix(30).joined(separator: "\n"))")
        d.advance(2)
        #expect(playing(d) == Self.camera, "the rotation comes back: \(d.trace.suffix(25).joined(separator: "\n"))")

        var alone = Self.drive()
        alone.core = PlaybackCore(
            settings: {
                var s = alone.core.settings
                s.itemOptions[Self.camera] = ItemOptions(duration: 4)
                return s
            }())
        alone.send(.start)
        alone.advance(10)
        #expect(alone.mpv.started.filter { $0.path == Self.camera }.count == 1)
    }
}
