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
        // mpv's window is kept for the presentation before the playlist stops (mpv 0.35 makes
        // one for `force-window` only as it goes idle): pictures alone load nothing into mpv.
        let window = d.commands.firstIndex(of: .set("force-window", .flag(true)))
        let stop = d.commands.firstIndex(of: .stop)
        #expect(window != nil && stop != nil && window! < stop!, "\(d.commands)")
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

    /// A playlist with a SMIL index: its first index is shown in place of the rest, from each
    /// start; a reload naming the same index changes nothing of the show, another index replaces
    /// it, a list without one plays as a list again.
    @Test func aPlaylistsIndexIsShownInPlaceOfItsOtherEntries() {
        var settings = PlayerSettings.folder()
        settings.playlist = ["/d", "http://cms/lobby.smil", "/srv/b.smil"]
        var d = Drive(settings, files: PlaybackCoreTests.two)
        d.send(.start)
        #expect(
            d.presented == ["http://cms/lobby.smil"] && d.core.presenting && d.core.index == "http://cms/lobby.smil")
        d.advance(3)
        #expect(d.played().isEmpty)
        d.send(.setPlaylist(["http://cms/lobby.smil"]))
        #expect(d.presented.count == 1, "the same index: the same show")
        d.send(.setPlaylist(["/srv/b.smil"]))
        #expect(d.presented.last == "/srv/b.smil")
        d.send(.setPlaylist(["/d"]))
        #expect(d.presented.last == .some(nil) && !d.core.presenting && d.core.index == nil)
        d.advance(1.5)
        #expect(d.played().first == "/d/1.png", "\(d.played())")
    }

    /// The sound as asked goes to mpv, and to each new mpv again.
    @Test func theSoundAsAskedGoesToEachMpv() {
        var d = Drive(.folder(), files: PlaybackCoreTests.two)
        d.send(.start)
        d.commands = []
        d.send(.volume(35))
        d.send(.mute(true))
        #expect(d.commands == [.set("volume", .double(35)), .set("volume", .double(35)), .set("mute", .flag(true))])
        d.commands = []
        d.send(.restarted)
        #expect(d.commands.suffix(2) == [.set("volume", .double(35)), .set("mute", .flag(true))], "\(d.commands)")
    }
}
