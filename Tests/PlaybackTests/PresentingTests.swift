import OrientationCore
import Playback
import Testing

/// The core while a SMIL presentation shows what plays (``PlaybackInput/present(_:)``): it loads
/// nothing and places no picture, and it still turns, lays out and draws the overlays.
@Suite("Playback core presenting")
struct PresentingTests {
    static func isMargin(_ c: MPVCommand) -> Bool {
        if case .set(let name, _) = c { return name.hasPrefix("video-margin-ratio-") }
        return false
    }

    @Test func aPresentationStopsThePlaylistLoadsNothingAndPlacesNoPicture() {
        var d = Drive(.folder(), files: PlaybackCoreTests.two)
        d.send(.start)
        d.advance(2)
        let before = d.played().count
        #expect(before > 0)
        d.commands = []
        d.send(.present(true))
        #expect(d.commands.contains(.stop), "\(d.commands)")
        // Nothing is looked at or loaded: not at a start, a folder's change or a retry.
        d.send(.start)
        d.send(.foldersChanged)
        d.advance(10)
        #expect(d.played().count == before, "\(d.played())")
        #expect(!d.commands.contains { if case .load = $0 { true } else { false } })
        // A turn: the picture turns, the presentation places it (no margin from the core).
        d.commands = []
        d.send(.apply(.landscapeRight, .surface, .inline))
        #expect(d.commands.contains(.set("video-rotate", .int(90))), "\(d.commands)")
        #expect(!d.commands.contains(where: Self.isMargin), "\(d.commands)")
        // A step has nothing to step through; a clip does not play over it.
        d.send(.step(.next, request: 7))
        #expect(d.replies[7] == [nil])
        d.events = []
        d.send(.clip("/c.mp4", position: nil))
        #expect(d.events.contains(.clipEnded))
        #expect(d.played().count == before)
    }

    @Test func thePlaylistPlaysAgainFromItsStartOnceThePresentationEnds() {
        var d = Drive(.folder(), files: PlaybackCoreTests.two)
        d.send(.present(true))
        d.send(.start)
        d.advance(3)
        #expect(d.played().isEmpty)
        d.send(.present(false))
        d.advance(1.5)
        #expect(d.played().first == "/d/1.png", "\(d.played())")
    }
}
