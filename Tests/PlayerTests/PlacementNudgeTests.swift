import Testing

@testable import Player

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
}
