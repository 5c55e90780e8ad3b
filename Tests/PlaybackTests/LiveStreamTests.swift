import Playback
import Testing

/// Live streams as the core takes them, at explicit times: a stream that is cut or stands still
/// shows the slate at once, its server is asked every half second, and the stream plays again as
/// soon as it answers; a live stream never makes the player give up.
@Suite("Live streams")
struct LiveStreamTests {
    static let camera = "rtsp://cam.local/stream1"

    static func drive(_ items: [String] = [camera], stallTimeout: Double? = 10) -> Drive {
        var s = PlayerSettings()
        s.playlist = items
        s.splash = "/s.png"
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
