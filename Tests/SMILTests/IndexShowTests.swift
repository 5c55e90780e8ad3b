import Testing
import Wire

@testable import SMIL

/// The index show's rules as a value, at explicit moments: reading, and which of mpv's ends count.
@Suite struct IndexShowTests {
    static func at(_ t: Double) -> Moment { Moment(elapsed: t, utc: 1_700_000_000 + t, utcOffset: 0) }
    static let index = Array(
        """
        <smil><head><meta http-equiv="Refresh" content="30"/></head><body><seq repeatCount="indefinite">
        <video xml:id="a" src="a.mp4"/><video xml:id="b" src="b.mp4"/></seq></body></smil>
        """.utf8)

    static func presented(_ e: [IndexShow.Effect]) -> Bool {
        e.contains { if case .present = $0 { true } else { false } }
    }

    @Test func theSameBytesChangeNothingAndABadVersionLeavesTheOldOne() {
        var show = IndexShow(entry: "/srv/index.smil", isFile: true)
        let first = show.handle(.read(.bytes(Self.index, file: "/srv/index.smil"), Self.at(0)))
        #expect(Self.presented(first) && show.readAt == 30, "its Refresh, for a file")
        #expect(show.handle(.read(.bytes(Self.index, file: "/srv/index.smil"), Self.at(30))).isEmpty)
        let bad = show.handle(.read(.bytes(Array("<smil><body>".utf8), file: "/srv/index.smil"), Self.at(60)))
        #expect(!Self.presented(bad) && show.status.problem?.hasPrefix("/srv/index.smil:1:") == true)
        #expect(show.presentation != nil && show.status.zones.map(\.id) == ["a"], "the old one plays on")
        var url = IndexShow(entry: "http://cms/index.smil", isFile: false)
        let missing = url.handle(.read(.missing("http://cms/index.smil: not downloaded yet", retry: false), Self.at(0)))
        #expect(missing.count == 2 && url.readAt == nil, "said once; read again when the cache has it")
        #expect(
            url.handle(.read(.missing("http://cms/index.smil: not downloaded yet", retry: false), Self.at(1))).isEmpty)
        #expect(url.handle(.read(.bytes(Self.index, file: "/cache/x"), Self.at(2))).contains(.refresh(30)))
    }

    @Test func onlyTheVideosOwnEntryEndsIt() {
        var show = IndexShow(entry: "/srv/index.smil", isFile: true)
        _ = show.handle(.read(.bytes(Self.index, file: "/srv/index.smil"), Self.at(0)))
        #expect(show.handle(.endReached(Self.at(1))).isEmpty, "not started yet: an earlier file's end")
        _ = show.handle(.started(entry: 7))
        #expect(show.handle(.ended(entry: 6, error: nil, Self.at(2))).isEmpty, "another entry's end is no news")
        let ended = show.handle(.endReached(Self.at(3)))
        #expect(
            ended.contains(
                .zone(ZonePlaying(region: "root", item: "/srv/b.mp4", id: "b", since: "2023-11-14T22:13:23Z"))))
        _ = show.handle(.started(entry: 8))
        let failed = show.handle(.ended(entry: 8, error: "/srv/a.mp4: no such file or directory", Self.at(4)))
        #expect(failed.contains(.videoShows) && show.status.faults == ["/srv/a.mp4: no such file or directory"])
        #expect(show.videoSource == "/srv/a.mp4", "the next, after the failure: a again")
        // The same fault each round is counted, not listed again; another one after it.
        _ = show.handle(.faults(["/srv/x.png: no such file", "/srv/a.mp4: no such file or directory"]))
        _ = show.handle(.faults(["/srv/x.png: no such file"]))
        #expect(
            show.status.faults == [
                "/srv/a.mp4: no such file or directory (2 times)", "/srv/x.png: no such file (2 times)",
            ])
        #expect(IndexShow.times(of: "/srv/x", in: "/srv/x.png: no such file (2 times)") == nil)
    }

    /// A tap begins what waits for the element shown where it landed (the topmost zone there);
    /// a key and a notification begin what waits for them; the rest changes nothing.
    @Test func aTapAKeyAndANotificationBeginWhatWaitsForThem() {
        let index = Array(
            """
            <smil><head><layout><root-layout width="1280" height="720"/>
              <region regionName="left" left="0" top="0" width="50%" height="100%"/>
              <region regionName="right" left="50%" top="0" width="50%" height="100%"/>
              <region regionName="badge" left="0" top="0" width="10%" height="10%" z-index="5"/>
            </layout></head><body><par>
              <brush xml:id="button" color="#0000ff" region="left" dur="indefinite"/>
              <brush xml:id="logo" color="#ffffff" region="badge" dur="indefinite"/>
              <excl dur="indefinite">
                <brush xml:id="waiting" color="#000000" region="right" begin="0" dur="indefinite"/>
                <brush xml:id="tapped" color="#ff0000" region="right" begin="button.activateEvent" dur="indefinite"/>
                <brush xml:id="keyed" color="#00ff00" region="right" begin="accesskey(w)" dur="indefinite"/>
                <brush xml:id="told" color="#ffff00" region="right" begin="notify(go)" dur="indefinite"/>
              </excl>
            </par></body></smil>
            """.utf8)
        var show = IndexShow(entry: "/srv/index.smil", isFile: true)
        _ = show.handle(.read(.bytes(index, file: "/srv/index.smil"), Self.at(0)))
        #expect(show.presentation?.document.accessKeys == ["w"])
        #expect(show.presentation?.document.waitsForActivation == true)
        let right = { show.status.zones.first { $0.region == "right" }?.id }
        #expect(right() == "waiting")
        // The window at half the root layout's size: the badge at its top left, over the button.
        let canvas = Canvas(width: 640, height: 360)
        _ = show.handle(.tapped(x: 20, y: 20, canvas, Self.at(1)))
        #expect(right() == "waiting", "the badge is over the button there")
        _ = show.handle(.tapped(x: 500, y: 200, canvas, Self.at(2)))
        #expect(right() == "waiting", "the right half waits for no tap")
        _ = show.handle(.tapped(x: 200, y: 200, canvas, Self.at(3)))
        #expect(right() == "tapped")
        _ = show.handle(.event(.accesskey("x"), Self.at(4)))
        #expect(right() == "tapped")
        _ = show.handle(.event(.accesskey("w"), Self.at(5)))
        #expect(right() == "keyed")
        #expect(!show.waits(for: .notify("stray")) && show.waits(for: .notify("go")))
        _ = show.handle(.event(.notify("go"), Self.at(6)))
        #expect(right() == "told")
    }

    /// With no video, the audio is mpv's medium: its end from mpv ends it; with a video, the
    /// video is (the audio is timed, not played).
    @Test func anIndexWithNoVideoFollowsItsAudio() throws {
        let sound = Array(
            """
            <smil><body><par><img src="p.png" dur="indefinite"/>
            <seq><audio xml:id="a" src="a.ogg"/><audio xml:id="b" src="b.ogg"/></seq></par></body></smil>
            """.utf8)
        let doc = try SMILDocument.read(sound, file: "/srv/index.smil").get()
        #expect(ZonePlan(doc).videoSlot == nil && ZonePlan(doc).playerSlot == .audio)
        var show = IndexShow(entry: "/srv/index.smil", isFile: true)
        _ = show.handle(.read(.bytes(sound, file: "/srv/index.smil"), Self.at(0)))
        #expect(show.videoSource == "/srv/a.ogg")
        _ = show.handle(.started(entry: 1))
        _ = show.handle(.endReached(Self.at(3)))
        #expect(show.status.zones.first { $0.region == "audio" }?.id == "b")
        let both = try SMILDocument.read(
            Array("<smil><body><par><video src=\"v.mp4\"/><audio src=\"a.ogg\"/></par></body></smil>".utf8),
            file: "/srv/index.smil"
        ).get()
        #expect(ZonePlan(both).playerSlot == .root)
    }
}
