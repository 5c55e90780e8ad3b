import Files
import Foundation
import MPV
import Playback
import SMIL
public import Wire

/// A SMIL index playing in the player's window in place of the core's playlist: the
/// ``Presentation`` (its rules in time, a value) and the ``SMILStage`` that shows its effects.
/// The player's one timer serves it too (``nextDeadline``); the core meanwhile turns, lays out
/// and draws the overlays, and loads nothing (``PlaybackCore/presenting``).
struct SMILShow {
    /// The playlist entry: a file or a URL.
    let entry: String
    /// The index's bytes as last read: the same bytes again change nothing.
    var bytes: [UInt8]?
    var presentation: Presentation?
    var stage: SMILStage?
    /// mpv's entry of the video the stage loaded, once mpv has started it (its end is the
    /// video's end; an earlier entry's end is no news).
    var videoEntry: Int64?
    var status: PresentationStatus
    /// When the index is read again: its `Refresh` for a file, or a retry while it cannot be read.
    var readAt: Double?

    init(entry: String) {
        self.entry = entry
        status = PresentationStatus(index: entry)
    }

    var nextDeadline: Double? { [presentation?.nextChange, readAt].compactMap { $0 }.min() }

    /// How often a file index is read again without a `Refresh`, and a missing one looked for.
    static let fileInterval = 5.0
    /// The faults kept for the status.
    static let faultsKept = 20
}

extension Player {
    /// Starts the playlist, or the idle scene when it is empty; a playlist with a SMIL index
    /// plays the index (``beginShow(_:)``).
    public func start() {
        if let index = core.settings.playlist.first(where: RemoteItem.isIndex) {
            beginShow(index)
        } else {
            feed(.start)
        }
    }

    /// Replaces the playlist (a reload) and plays it from its start; the same list changes nothing.
    /// A list with a SMIL index plays the index; one that names another index replaces it.
    public func setPlaylist(_ items: [String]) {
        let index = items.first(where: RemoteItem.isIndex)
        feed(.setPlaylist(items))
        if let index {
            if index != show?.entry { beginShow(index) }
        } else if show != nil {
            endShow()
        }
    }

    /// The status of the SMIL index playing; `nil` when none does.
    public var presentationStatus: PresentationStatus? { show?.status }

    /// Plays the SMIL index `entry` in place of the playlist: mpv stops what it played, holds a
    /// video's last frame at its end (`keep-open`, so that nothing black shows before the next
    /// item), and the index is read.
    func beginShow(_ entry: String) {
        show?.stage?.clearAll()
        show = SMILShow(entry: entry)
        feed(.present(true))
        prepareMPV()
        readIndex()
    }

    /// The playlist has no index any more: its zones are cleared and the core plays the list.
    func endShow() {
        show?.stage?.clearAll()
        show = nil
        for name in ["keep-open", "force-window"] { try? mpv.set(name, .string(core.settings.mpv[name] ?? "no")) }
        try? mpv.set("loop-playlist", .string(core.settings.loop ? "inf" : "no"))
        feed(.present(false))
    }

    /// This mpv holds a video's last frame and says when it reached the end (once per mpv).
    func prepareMPV() {
        do {
            // Nothing after a video: no loop of mpv's playlist (the presentation repeats what
            // repeats), so that a video's end is its end and holds its last frame.
            try mpv.set("loop-playlist", .string("no"))
            try mpv.set("keep-open", .string("yes"))
            // The window stays while no video plays (a picture or a brush in the video's region).
            try mpv.set("force-window", .string("yes"))
            if eofObserved != ObjectIdentifier(mpv) {
                try mpv.observe("eof-reached", as: .flag)
                eofObserved = ObjectIdentifier(mpv)
            }
        } catch {
            continuation.yield(.problem("SMIL: mpv cannot hold a video's end: \(error)"))
        }
    }

    /// Reads the index (a file, or the cache's copy of a URL). The same bytes change nothing; a
    /// new index replaces the presentation from its start; one that cannot be read leaves what
    /// plays playing and says why.
    func readIndex() {
        guard var s = show else { return }
        defer {
            show = s
            schedule()
        }
        let local = Playlist.localPath(s.entry)
        s.readAt = local == nil ? nil : timer.now() + (s.presentation?.document.refresh ?? SMILShow.fileInterval)
        guard let path = local ?? outside.cached?(s.entry) else {
            note(&s, problem: "\(s.entry): not downloaded yet")
            return
        }
        guard let bytes = readPrefix(path, limit: XMLTree.maxBytes + 1) else {
            note(&s, problem: "\(s.entry): " + (readProblem(path) ?? "cannot be read"))
            s.readAt = timer.now() + SMILShow.fileInterval
            return
        }
        guard bytes != s.bytes else { return }
        s.bytes = bytes
        s.status.file = path
        switch SMILDocument.read(bytes, file: s.entry) {
        case .failure(let refusal): note(&s, problem: refusal.description)
        case .success(let doc): present(doc, in: &s)
        }
    }

    /// Why the index does not play (what played before goes on), said once per reason.
    private func note(_ s: inout SMILShow, problem: String) {
        guard s.status.problem != problem else { return }
        s.status.problem = problem
        continuation.yield(.problem("SMIL: \(problem)"))
        continuation.yield(.presentation(s.status))
    }

    /// `doc` plays from its start, in place of what played.
    private func present(_ doc: SMILDocument, in s: inout SMILShow) {
        for d in doc.diagnostics { continuation.yield(.problem("SMIL: \(d)")) }
        s.status.problem = nil
        s.status.title = doc.title
        s.status.refresh = doc.refresh
        s.status.refused = doc.diagnostics.map(\.description)
        s.status.zones = []
        if Playlist.localPath(s.entry) == nil { outside.indexRefresh?(s.entry, doc.refresh) }
        s.stage?.clearAll()
        let stage = SMILStage(doc, mpv: mpv, canvas: canvas, locate: Self.locator(for: s.entry, cached: outside.cached))
        var presentation = Presentation(doc, at: moment())
        s.stage = stage
        s.videoEntry = nil
        let effects = presentation.start()
        s.presentation = presentation
        continuation.yield(.presentation(s.status))
        carry(effects, in: &s)
    }

    /// Where the index's `src` is for mpv: resolved against the index, a cached copy when the
    /// cache has one (else the URL itself, from the network).
    static func locator(for entry: String, cached: (@Sendable (String) -> String?)?)
        -> @Sendable (String) -> Result<String, MediaAddress.Refusal>
    {
        { src in MediaAddress.resolve(src, against: entry).map { cached?($0) ?? $0 } }
    }

    /// The window now, as the presentation fills it.
    var canvas: Canvas {
        let size = core.windowSize
        return Canvas(width: size.width, height: size.height, angle: core.surfaceAngle)
    }

    /// The moment now: the player's monotonic time, the system clock and the local zone's offset.
    func moment() -> Moment {
        Moment(
            elapsed: timer.now(), utc: Date().timeIntervalSince1970, utcOffset: TimeZone.current.secondsFromGMT())
    }

    /// Hands `input` to the presentation and carries its effects out.
    func inform(_ input: (Moment) -> SMILInput) {
        guard var s = show, var p = s.presentation else { return }
        let effects = p.handle(input(moment()))
        s.presentation = p
        carry(effects, in: &s)
        show = s
        schedule()
    }

    /// The stage shows `effects`; each zone's change is said (the status, the proof of play), and
    /// what could not be shown is kept with why.
    private func carry(_ effects: [SMILEffect], in s: inout SMILShow) {
        guard let stage = s.stage, let doc = s.presentation?.document else { return }
        let before = stage.playing.map { [$0.node, $0.serial] }
        stage.apply(effects)
        if stage.playing.map({ [$0.node, $0.serial] }) != before { s.videoEntry = nil }
        let since = Date().formatted(.iso8601)
        for effect in effects {
            let zone: ZonePlaying
            switch effect {
            case .show(let slot, let shown):
                let item =
                    shown.media.kind == .brush
                    ? "brush \(shown.media.color ?? "")"
                    : (try? MediaAddress.resolve(shown.media.src, against: s.entry).get()) ?? shown.media.src
                zone = ZonePlaying(
                    region: doc.name(of: slot), item: item, id: doc.nodes[shown.node].id, since: since)
            case .clear(let slot): zone = ZonePlaying(region: doc.name(of: slot), item: nil, id: nil, since: since)
            case .hold, .prefetch, .restarted: continue
            }
            // A show again of what the zone shows (a repeat) is still a new play.
            s.status.zones.removeAll { $0.region == zone.region }
            if zone.item != nil { s.status.zones.append(zone) }
            s.status.zones.sort { $0.region < $1.region }
            continuation.yield(.zone(zone))
        }
        for fault in stage.problems {
            continuation.yield(.problem("SMIL: \(fault)"))
            s.status.faults = Array((s.status.faults + [fault]).suffix(SMILShow.faultsKept))
        }
    }

    /// An mpv event while a presentation plays: its video's start and end are the presentation's;
    /// the rest goes to the core. Returns whether the presentation took it.
    func showTakes(_ e: MPVEvent) -> Bool {
        switch e {
        case .startFile(let entry):
            if show?.stage?.playing != nil, show?.videoEntry == nil { show?.videoEntry = entry }
            return true
        case .endFile(let reason, let error, let entry):
            guard entry == show?.videoEntry else { return true }
            show?.videoEntry = nil
            show?.stage?.videoShows()
            if reason == "error" {
                videoFailed(error ?? "unknown error")
            } else {
                videoEnded()
            }
            return true
        case .propertyChange("eof-reached", .flag(true)?):
            if show?.videoEntry != nil { videoEnded() }
            return true
        case .playbackRestart:
            show?.stage?.videoShows()
            return true
        case .propertyChange("eof-reached", _), .fileLoaded, .idle: return true
        default: return false
        }
    }

    /// The video slot's video could not be played: said with its file's name (its `src` as the
    /// index resolves it) and mpv's reason, and kept with the faults.
    func videoFailed(_ why: String) {
        guard var s = show, let playing = s.stage?.playing, let doc = s.presentation?.document,
            case .media(let m) = doc.nodes[playing.node].kind
        else { return }
        let src = (try? MediaAddress.resolve(m.src, against: s.entry).get()) ?? m.src
        let fault = Self.whyUnplayable(src) ?? "\(src): \(why)"
        continuation.yield(.problem("SMIL: \(fault)"))
        s.status.faults = Array((s.status.faults + [fault]).suffix(SMILShow.faultsKept))
        show = s
        inform { .mediaFailed(node: playing.node, serial: playing.serial, $0) }
    }

    /// The video slot's video ended (or could not play): its media's own duration is over.
    func videoEnded() {
        guard let playing = show?.stage?.playing else { return }
        inform { .mediaEnded(node: playing.node, serial: playing.serial, $0) }
    }

    /// The one timer fired: the index read again when due, then what changed by now.
    func showTick() {
        guard let s = show else { return }
        if let t = s.readAt, t <= timer.now() { readIndex() }
        if let t = show?.presentation?.nextChange, t <= timer.now() { inform { .tick($0) } }
    }

    /// The window resized or turned: every zone at its new place.
    func followCanvas() {
        guard let stage = show?.stage, let p = show?.presentation, stage.canvas != canvas else { return }
        stage.relayout(canvas, shown: p.shown)
        feed(.placed)
    }

    /// A new mpv took over: it holds its videos' ends too, and the presentation shows on it as it
    /// stands (its video from where it was shown).
    func showRestarted() {
        guard var s = show else { return }
        prepareMPV()
        if let doc = s.presentation?.document {
            let stage = SMILStage(
                doc, mpv: mpv, canvas: canvas, locate: Self.locator(for: s.entry, cached: outside.cached))
            stage.relayout(canvas, shown: s.presentation?.shown ?? [:])
            s.stage = stage
            s.videoEntry = nil
        }
        show = s
        schedule()
    }
}
