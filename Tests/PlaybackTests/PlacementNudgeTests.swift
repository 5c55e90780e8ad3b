import Playback
import Testing

/// mpv 0.35's wlshm output shows a new zoom, pan, alignment or margin only when its window
/// resizes: which outputs and versions need the nudge, and which properties call for it.
@Suite("The placement nudge")
struct PlacementNudgeTests {
    @Test(arguments: [
        ("wlshm", "mpv 0.35.1", true), ("wlshm", "mpv 0.34.1", true), ("wlshm", "mpv v0.35.0-dirty", true),
        ("wlshm", "mpv 0.36.0", false), ("wlshm", "mpv 0.38.0", false), ("wlshm", "mpv 1.0.0", false),
        ("wlshm", "mpv v0.40.0-112-g1a2b3c", false), ("gpu", "mpv 0.35.1", false), ("null", "mpv 0.35.1", false),
        ("dmabuf-wayland", "mpv 0.35.1", false),
        // A version it cannot read: nudged (a resize changes nothing where it is not needed).
        ("wlshm", "mpv git-unknown", true), ("wlshm", "", true),
    ])
    func whichOutputsNeedIt(vo: String, version: String, needed: Bool) {
        #expect(PlacementNudge.needed(videoOutput: vo, version: version) == needed)
    }

    @Test func thePropertiesThatPlaceThePicture() {
        for name in [
            "video-zoom", "video-pan-x", "video-pan-y", "video-align-x", "video-align-y", "video-margin-ratio-top",
            "video-margin-ratio-bottom", "video-margin-ratio-left", "video-margin-ratio-right",
        ] {
            #expect(PlacementNudge.places(name), "\(name)")
        }
        for name in [
            "video-rotate", "pause", "speed", "mute", "fullscreen", "autofit-smaller", "video-aspect-override",
        ] {
            #expect(!PlacementNudge.places(name), "\(name)")
        }
    }

    /// Each write differs from the 63 before it (mpv's output reads its options in batches and
    /// sees no change in writes that return to the value it last read).
    @Test func eachValueDiffersFromTheLastOnes() {
        for n in 0..<200 {
            let earlier = Set((max(0, n - 63)..<n).map(PlacementNudge.value))
            #expect(!earlier.contains(PlacementNudge.value(n)), "\(n)")
        }
    }

    /// A wall's tile, placed by zoom and pan once both sizes are known.
    static func tile(_ window: PlacementSample) -> Drive {
        var settings = PlayerSettings.folder()
        settings.wall = WallTile(columns: 3, rows: 1, column: 0, row: 0, orientation: .landscapeLeft)
        var d = Drive(settings, files: ["/d/1.png": "a"])
        d.window = window
        d.send(.apply(.landscapeLeft, .interface, .inline))
        return d
    }

    var nudges: (inout Drive) -> [String] {
        { d in
            d.commands.compactMap {
                if case .command(let words) = $0, words.first == "set", words.dropFirst().first == PlacementNudge.option
                {
                    return words.last
                }
                return nil
            }
        }
    }

    /// mpv 0.35's wlshm in a full-screen window: each new place and each new window size is
    /// followed by a nudge, a new value each time.
    @Test func aFullScreenWlshmWindowIsNudgedAfterEachNewPlace() {
        var d = Self.tile(PlacementSample(videoOutput: "wlshm", version: "mpv 0.35.1", filling: true))
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        d.send(.mpv(.videoSize(width: 1920, height: 360)))
        d.send(.apply(.portrait, .interface, .inline))
        d.send(.mpv(.osdSize(width: 360, height: 640)))
        let values = nudges(&d)
        #expect(values.count >= 3)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 })
        // The nudge follows the placement it is for.
        let lastPan = d.commands.lastIndex { if case .set("video-pan-y", _) = $0 { true } else { false } }
        let lastNudge = d.commands.lastIndex {
            if case .command(let w) = $0 { w.contains(PlacementNudge.option) } else { false }
        }
        #expect(lastPan != nil && lastNudge != nil && lastPan! < lastNudge!)
    }

    /// Another output, or a newer mpv: the window is read once, and never nudged.
    @Test(arguments: [("gpu", "mpv 0.35.1"), ("wlshm", "mpv 0.36.0")])
    func anotherOutputIsReadOnceAndNeverNudged(output: String, version: String) {
        var d = Self.tile(PlacementSample(videoOutput: output, version: version, filling: true))
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        d.send(.mpv(.videoSize(width: 1920, height: 360)))
        d.send(.apply(.portrait, .interface, .inline))
        #expect(d.windowReads == 1)
        #expect(nudges(&d).isEmpty)
        // A new mpv may have another output: read again.
        d.send(.restarted)
        d.send(.mpv(.osdSize(width: 360, height: 640)))
        #expect(d.windowReads == 2)
    }

    /// A window that does not fill the screen is not nudged (mpv would take the video's own size
    /// as its geometry); one not open yet is read again at its next size.
    @Test func aNormalWindowOrNoneIsNotNudged() {
        var d = Self.tile(PlacementSample(videoOutput: "wlshm", version: "mpv 0.35.1", filling: false))
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        d.send(.mpv(.videoSize(width: 1920, height: 360)))
        #expect(nudges(&d).isEmpty)
        d.window = PlacementSample(videoOutput: nil)
        let reads = d.windowReads
        d.send(.mpv(.osdSize(width: 360, height: 640)))
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        #expect(d.windowReads == reads + 2 && nudges(&d).isEmpty)
    }
}
