import Foundation
public import Wire

/// A SMIL index playing in a player's window, as a value: when the index is read again, what a
/// read changes (the same bytes nothing, new ones a presentation from its start, a malformed one
/// nothing but its reason), which of mpv's entries is the presentation's video (its end is the
/// video's end, an earlier entry's is no news), and the status. Times come with the inputs; the
/// player's shell reads the file, carries the effects out on its stage, and tells mpv's events.
public struct IndexShow: Sendable {
    /// The playlist entry: a file or a URL.
    public let entry: String
    /// A file on disk (read again on a timer), not a URL (read again when the cache has a new copy).
    public let isFile: Bool
    public private(set) var presentation: Presentation?
    public private(set) var status: PresentationStatus
    /// The index's bytes as last read.
    var bytes: [UInt8]?
    /// The slot whose media mpv plays (``ZonePlan/playerSlot``: the video's, else the audio's),
    /// the interval it plays there, and mpv's entry for it once mpv has started it. "The video"
    /// below is that medium, sound only in an index with no video.
    var videoSlot: Slot?
    var video: (node: Int, serial: Int)?
    var videoEntry: Int64?
    /// When the index is read again: its `Refresh` for a file, or a retry while it cannot be read.
    public private(set) var readAt: Double?

    /// How often a file index is read again without a `Refresh`, and a missing one looked for.
    public static let fileInterval = 5.0
    /// The faults kept for the status.
    public static let faultsKept = 20

    public init(entry: String, isFile: Bool) {
        self.entry = entry
        self.isFile = isFile
        status = PresentationStatus(index: entry)
    }

    /// What the shell found when it read the index.
    public enum Read: Sendable, Hashable {
        case bytes([UInt8], file: String)
        /// Not there yet (a URL the cache has not downloaded), or unreadable: why.
        case missing(String, retry: Bool)
    }

    public enum Input: Sendable, Hashable {
        case read(Read, Moment)
        case tick(Moment)
        /// mpv started an entry, ended one (with its error), or reached the end of the one it plays.
        case started(entry: Int64)
        case ended(entry: Int64, error: String?, Moment)
        case endReached(Moment)
        /// What the stage could not show, each in words.
        case faults([String])
        /// A new mpv shows the presentation: its entries are new ones.
        case restarted
        /// A key pressed (`accesskey`) or a notification sent (`notify`).
        case event(TimeValue.Event, Moment)
        /// A tap or a click at a point of the window (`canvas`): the element shown there is activated.
        case tapped(x: Double, y: Double, Canvas, Moment)
    }

    public enum Effect: Sendable, Hashable {
        /// A new stage for this index, in place of the old one.
        case present(SMILDocument)
        /// The presentation's effects, for the stage.
        case show([SMILEffect])
        /// The video's first frame is there, or it could not play: what covered its zone goes.
        case videoShows
        case problem(String)
        case zone(ZonePlaying)
        case status(PresentationStatus)
        /// The index's own refresh interval, for the cache (a URL's).
        case refresh(Double?)
    }

    /// When something is due with no input.
    public var nextDeadline: Double? { [presentation?.nextChange, readAt].compactMap { $0 }.min() }

    /// The video's `src` as the index resolves it, while one plays (for the words of its failure).
    public var videoSource: String? {
        guard let v = video, let doc = presentation?.document, case .media(let m) = doc.nodes[v.node].kind else {
            return nil
        }
        return (try? MediaAddress.resolve(m.src, against: entry).get()) ?? m.src
    }

    public mutating func handle(_ input: Input) -> [Effect] {
        switch input {
        case .read(let read, let m): return self.read(read, at: m)
        case .tick(let m):
            guard let t = presentation?.nextChange, t <= m.elapsed else { return [] }
            return inform(.tick(m), at: m)
        case .started(let entry):
            if video != nil, videoEntry == nil { videoEntry = entry }
            return []
        case .ended(let entry, let error, let m):
            guard entry == videoEntry, let v = video else { return [] }
            videoEntry = nil
            guard let error else {
                return [.videoShows] + inform(.mediaEnded(node: v.node, serial: v.serial, m), at: m)
            }
            return [.videoShows] + fault(error) + inform(.mediaFailed(node: v.node, serial: v.serial, m), at: m)
        case .endReached(let m):
            guard videoEntry != nil, let v = video else { return [] }
            return inform(.mediaEnded(node: v.node, serial: v.serial, m), at: m)
        case .restarted:
            videoEntry = nil
            return []
        case .faults(let faults):
            var out: [Effect] = []
            for f in faults { out += fault(f) }
            return out
        case .event(let event, let m):
            return inform(.event(event, m), at: m)
        case .tapped(let x, let y, let canvas, let m):
            guard let p = presentation, let node = p.document.node(at: x, y, on: canvas, shown: p.shown) else {
                return []
            }
            return inform(.activate(node: node, m), at: m)
        }
    }

    /// Whether some `begin` or `end` of the index playing waits for `event`.
    public func waits(for event: TimeValue.Event) -> Bool {
        presentation?.document.awaitedEvents.contains(event) ?? false
    }

    /// Whether the index is due to be read at `now`.
    public func readDue(at now: Double) -> Bool { readAt.map { $0 <= now } ?? false }

    private mutating func read(_ read: Read, at m: Moment) -> [Effect] {
        switch read {
        case .missing(let why, let retry):
            readAt = isFile || retry ? m.elapsed + Self.fileInterval : nil
            return note(why)
        case .bytes(let bytes, let file):
            readAt = isFile ? m.elapsed + (presentation?.document.refresh ?? Self.fileInterval) : nil
            guard bytes != self.bytes else { return [] }
            self.bytes = bytes
            status.file = file
            switch SMILDocument.read(bytes, file: entry) {
            case .failure(let refusal): return note(refusal.description)
            case .success(let doc):
                if isFile { readAt = m.elapsed + (doc.refresh ?? Self.fileInterval) }
                return present(doc, at: m)
            }
        }
    }

    /// Why the index does not play (what played before goes on), said once per reason.
    private mutating func note(_ problem: String) -> [Effect] {
        guard status.problem != problem else { return [] }
        status.problem = problem
        return [.problem(problem), .status(status)]
    }

    /// `doc` plays from its start, in place of what played.
    private mutating func present(_ doc: SMILDocument, at m: Moment) -> [Effect] {
        status.problem = nil
        status.title = doc.title
        status.refresh = doc.refresh
        status.refused = doc.diagnostics.map(\.description)
        status.zones = []
        (videoSlot, video, videoEntry) = (ZonePlan(doc).playerSlot, nil, nil)
        var p = Presentation(doc, at: m)
        let effects = p.start()
        presentation = p
        let said: [Effect] = doc.diagnostics.map { .problem($0.description) }
        return said + [.present(doc)] + (isFile ? [] : [.refresh(doc.refresh)]) + [.status(status)]
            + shown(effects, at: m)
    }

    /// `input` to the presentation, and its effects shown.
    private mutating func inform(_ input: SMILInput, at m: Moment) -> [Effect] {
        guard var p = presentation else { return [] }
        let effects = p.handle(input)
        presentation = p
        return shown(effects, at: m)
    }

    /// The presentation's `effects` for the stage; each zone's change said, and the video slot's
    /// interval followed (a new one waits for its own start from mpv).
    private mutating func shown(_ effects: [SMILEffect], at m: Moment) -> [Effect] {
        guard let doc = presentation?.document, !effects.isEmpty else { return [] }
        let since = Date(timeIntervalSince1970: m.utc).formatted(.iso8601)
        var out: [Effect] = [.show(effects)]
        for effect in effects {
            let zone: ZonePlaying
            switch effect {
            case .show(let slot, let s):
                if slot == videoSlot { followVideo(s.media.isContinuous ? (s.node, s.serial) : nil) }
                let item =
                    s.media.kind == .brush
                    ? "brush \(s.media.color ?? "")"
                    : (try? MediaAddress.resolve(s.media.src, against: entry).get()) ?? s.media.src
                zone = ZonePlaying(region: doc.name(of: slot), item: item, id: doc.nodes[s.node].id, since: since)
            case .clear(let slot):
                if slot == videoSlot { followVideo(nil) }
                zone = ZonePlaying(region: doc.name(of: slot), item: nil, id: nil, since: since)
            case .hold, .prefetch, .restarted: continue
            }
            // A show again of what the zone shows (a repeat) is still a new play.
            status.zones.removeAll { $0.region == zone.region }
            if zone.item != nil { status.zones.append(zone) }
            status.zones.sort { $0.region < $1.region }
            out.append(.zone(zone))
        }
        return out
    }

    private mutating func followVideo(_ shown: (node: Int, serial: Int)?) {
        guard shown?.node != video?.node || shown?.serial != video?.serial else { return }
        (video, videoEntry) = (shown, nil)
    }

    /// A fault for the status and the log; one said before (a missing picture each round) is
    /// counted and moved last, not listed again: `TEXT (N times)`.
    private mutating func fault(_ fault: String) -> [Effect] {
        var times = 1
        for (i, entry) in status.faults.enumerated() {
            guard let before = Self.times(of: fault, in: entry) else { continue }
            times += before
            status.faults.remove(at: i)
            break
        }
        let entry = times == 1 ? fault : "\(fault) (\(times) times)"
        status.faults = Array((status.faults + [entry]).suffix(Self.faultsKept))
        return [.problem(fault)]
    }

    /// How many times `entry` says `fault` happened (`fault`, or `fault (N times)`), or `nil`
    /// when it is another fault.
    static func times(of fault: String, in entry: String) -> Int? {
        if entry == fault { return 1 }
        guard entry.hasPrefix(fault + " ("), entry.hasSuffix(" times)") else { return nil }
        return Int(entry.dropFirst(fault.count + 2).dropLast(" times)".count))
    }
}
