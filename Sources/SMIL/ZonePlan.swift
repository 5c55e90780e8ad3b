/// How a presentation is shown in one mpv window: mpv's own video plays in one slot (the first
/// a video of the index plays in), placed by its margins; every slot is also a zone drawn over
/// it, with an overlay id that follows the regions' stacking (`z-index`, then document order),
/// the video's lowest: over its video it shows a picture, or its background while it is empty.
/// The root layout's background is mpv's own (`background`), under everything.
public struct ZonePlan: Sendable, Hashable {
    /// The slot mpv's video plays in; `nil` when the index has no video.
    public let videoSlot: Slot?
    /// The slot whose media mpv plays: the video's; in an index with no video, the audio's (its
    /// sound heard, nothing of it on screen). `nil` when it has neither.
    public let playerSlot: Slot?
    /// Each slot drawn over the video, with its overlay id (1…63; later ids show above).
    public let ids: [Slot: Int]
    /// Slots past 63 zones are not drawn (said in `dropped`).
    public let dropped: [Slot]

    public init(_ doc: SMILDocument) {
        var slots: [Slot] = []
        var video: Slot?
        for node in doc.nodes {
            guard case .media(let m) = node.kind else { continue }
            let slot: Slot = m.kind == .audio ? .audio : m.region.map(Slot.region) ?? .root
            if m.kind == .video, video == nil { video = slot }
            if slot != .audio, !slots.contains(slot) { slots.append(slot) }
        }
        videoSlot = video
        let audio = doc.nodes.contains { if case .media(let m) = $0.kind { m.kind == .audio } else { false } }
        playerSlot = video ?? (audio ? .audio : nil)
        let z = { (s: Slot) -> Int in if case .region(let i) = s { doc.layout.regions[i].zIndex } else { Int.min } }
        let order =
            (video.map { [$0] } ?? [])
            + slots.filter { $0 != video }.enumerated().sorted { a, b in
                z(a.element) != z(b.element) ? z(a.element) < z(b.element) : a.offset < b.offset
            }.map(\.element)
        var ids: [Slot: Int] = [:]
        for (k, slot) in order.prefix(63).enumerated() { ids[slot] = k + 1 }
        self.ids = ids
        dropped = Array(order.dropFirst(63))
    }

    /// What a slot's zone shows.
    public enum Drawing: Sendable, Hashable {
        /// A picture, read and scaled by mpv with these options, in the zone.
        case picture(src: String, options: [String: String])
        case color(String)
        /// The words of a text file (`src`), drawn by ``ZoneText`` over the region's background.
        case text(src: String, background: String?)
        /// Nothing of its own: the zone is taken off (its region's background shows, if any).
        case none
    }

    /// The drawing for `shown` in `slot`: a picture or a brush; an empty region its background
    /// (the video's slot, black when it has none; the root none: mpv's background is the root's).
    /// A video in the video's slot is mpv's own: no zone. A `text` (or a `ref` of a text type) is
    /// its file's words; other references have no drawing of their own here (`none`).
    public func drawing(_ shown: Shown?, in slot: Slot, of doc: SMILDocument) -> Drawing {
        let region: SMILDocument.Region? = if case .region(let i) = slot { doc.layout.regions[i] } else { nil }
        let background = region?.backgroundColor ?? (slot == .root ? doc.layout.backgroundColor : nil)
        guard let shown else {
            if slot == videoSlot { return .color(background.flatMap(Self.opaque) ?? "#000000") }
            return slot == .root ? .none : background.flatMap(Self.opaque).map(Drawing.color) ?? .none
        }
        switch shown.media.kind {
        case .brush: return shown.media.color.flatMap(Self.opaque).map(Drawing.color) ?? .none
        case .text: return .text(src: shown.media.src, background: background.flatMap(Self.opaque))
        case .ref where shown.media.type?.hasPrefix("text/plain") == true:
            return .text(src: shown.media.src, background: background.flatMap(Self.opaque))
        case .img:
            var options = Self.mpvOptions(fit: shown.media.fit ?? region?.fit ?? .hidden)
            options["background"] = background.flatMap(Self.opaque) ?? "#000000"
            return .picture(src: shown.media.src, options: options)
        default: return .none
        }
    }

    /// A colour mpv can draw opaque; `transparent` is none.
    static func opaque(_ color: String) -> String? { color.hasPrefix("#") ? color : nil }

    /// mpv's options that scale a picture or a video into its zone as `fit` says (all five each
    /// time, so that a video's fit replaces the last one's).
    public static func mpvOptions(fit: SMILDocument.Fit) -> [String: String] {
        let (keep, panscan, unscaled, align): (String, String, String, String) =
            switch fit {
            case .fill: ("no", "0", "no", "0")
            case .meet: ("yes", "0", "no", "0")
            case .meetBest: ("yes", "0", "downscale-big", "0")
            case .slice: ("yes", "1", "no", "0")
            case .hidden, .scroll: ("yes", "0", "yes", "-1")
            }
        return [
            "keepaspect": keep, "panscan": panscan, "video-unscaled": unscaled, "video-align-x": align,
            "video-align-y": align,
        ]
    }
}
