public import Diagnostics

/// A SMIL index as read: its layout, its refresh, and its body as a flat tree of timed nodes
/// (node 0 is the body, a `seq`), with what was refused or taken another way, each at its place.
public struct SMILDocument: Sendable, Hashable {
    public var file: String
    public var title: String?
    /// `meta http-equiv="Refresh" content="N"`: read the index again every N seconds.
    public var refresh: Double?
    public var layout: Layout
    public var nodes: [Node]
    public var diagnostics: [Diagnostic]

    /// The root layout's size, its background, and the regions in it (in the root's pixels).
    public struct Layout: Sendable, Hashable {
        public var width: Double = 1920, height: Double = 1080
        public var backgroundColor: String?
        public var regions: [Region] = []
    }

    public struct Region: Sendable, Hashable {
        /// `regionName`, or its `xml:id` where it has none.
        public var name: String
        public var id: String?
        public var left: Double, top: Double, width: Double, height: Double
        public var zIndex: Int
        public var backgroundColor: String?
        public var fit: Fit?
    }

    public enum Fit: String, Sendable, Hashable, CaseIterable {
        case fill, meet, meetBest = "meetbest", slice, hidden, scroll
    }

    public struct Node: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case seq, par, excl
            /// A group of an `excl`'s children with its rules for interrupting and being interrupted.
            case priorityClass(PriorityClass)
            case media(Media)
            /// Fetches its `src` into the cache when it begins; it shows nothing.
            case prefetch(String)
        }

        public var kind: Kind
        /// `xml:id` (or `id`).
        public var id: String?
        public var name: String
        public var parent: Int?
        public var children: [Int] = []
        public var timing: Timing
        public var line: Int, column: Int

        public var isContainer: Bool {
            switch kind {
            case .seq, .par, .excl: true
            default: false
            }
        }
    }

    public struct PriorityClass: Sendable, Hashable {
        public enum Peers: String, Sendable, Hashable { case stop, pause, `defer`, never }
        public enum Higher: String, Sendable, Hashable { case stop, pause }
        public enum Lower: String, Sendable, Hashable { case `defer`, never }
        public var peers: Peers = .stop
        public var higher: Higher = .pause
        public var lower: Lower = .defer
    }

    public struct Media: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable { case img, video, audio, brush, text, ref }
        public var kind: Kind
        /// As written, with the `<state>`'s `{name}` substitutions made; resolved against the
        /// index's own address by whoever fetches it.
        public var src: String
        /// An index into the layout's regions; `nil` for the root layout as a whole.
        public var region: Int?
        public var fit: Fit?
        /// A brush's colour.
        public var color: String?
        /// The media's `type` attribute (`text/html`), where given.
        public var type: String?
        /// Continuous media (video, audio) has a duration of its own; the rest has none.
        public var isContinuous: Bool { kind == .video || kind == .audio }
    }

    public struct Timing: Sendable, Hashable {
        public enum Duration: Sendable, Hashable {
            /// None given: the element's own (media's length, a container's children).
            case implicit
            case seconds(Double)
            case indefinite
        }

        public enum Fill: String, Sendable, Hashable { case remove, freeze, hold, auto }
        public enum EndSync: Sendable, Hashable { case first, last, all, id(String) }
        public enum Restart: String, Sendable, Hashable { case always, whenNotActive, never }

        /// `nil` when not given: 0 in a `par` and a `seq`, `indefinite` in an `excl`.
        public var begin: [TimeValue]?
        public var end: [TimeValue] = []
        public var dur: Duration = .implicit
        /// `.infinity` for `indefinite`.
        public var repeatCount: Double?
        public var repeatDur: Double?
        public var fill: Fill = .auto
        public var endsync: EndSync = .last
        public var restart: Restart = .always

        /// SMIL's `fill="auto"`: freeze when none of `dur`, `end`, `repeatCount`, `repeatDur` is given.
        public var freezes: Bool {
            switch fill {
            case .freeze, .hold: true
            case .remove: false
            case .auto: dur == .implicit && end.isEmpty && repeatCount == nil && repeatDur == nil
            }
        }
    }

    /// The region a media node plays in, or the whole root layout.
    public func box(of region: Int?) -> (left: Double, top: Double, width: Double, height: Double) {
        guard let region, layout.regions.indices.contains(region) else {
            return (0, 0, layout.width, layout.height)
        }
        let r = layout.regions[region]
        return (r.left, r.top, r.width, r.height)
    }
}

extension SMILDocument {
    /// How many media elements it plays.
    public var mediaCount: Int {
        nodes.count { if case .media = $0.kind { true } else { false } }
    }
}

extension SMILDocument {
    /// A slot as the status and the diagnostics name it: its region's name, "root" or "audio".
    public func name(of slot: Slot) -> String {
        switch slot {
        case .root: "root"
        case .audio: "audio"
        case .region(let i): layout.regions.indices.contains(i) ? layout.regions[i].name : "region \(i)"
        }
    }

    /// Every `src` it plays or fetches ahead (media and `prefetch`), once each, in document order;
    /// a brush has none.
    public var sources: [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for node in nodes {
            let src: String
            switch node.kind {
            case .media(let m) where m.kind != .brush: src = m.src
            case .prefetch(let s): src = s
            default: continue
            }
            if !src.isEmpty, seen.insert(src).inserted { out.append(src) }
        }
        return out
    }
}
