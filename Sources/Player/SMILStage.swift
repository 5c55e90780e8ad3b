import Files
import Foundation
public import MPV
public import SMIL

/// A SMIL presentation's effects carried out in one mpv window (``ZonePlan``): the video slot is
/// mpv's own video, placed by its margins and scaled by its fit; every other slot (and the video
/// slot while it shows no video) is a zone drawn over it: a picture, a colour, or a text's words.
/// In an index with no video, mpv plays its audio instead (``ZonePlan/playerSlot``). It holds no rule in time: the ``Presentation`` says what shows, this only shows it.
public final class SMILStage {
    let document: SMILDocument
    let plan: ZonePlan
    let mpv: MPVHandle
    /// Where a media `src` is to mpv (a path or a URL), or why it may not play.
    let locate: (String) -> Result<String, MediaAddress.Refusal>
    public private(set) var canvas: Canvas
    /// What was drawn in each zone, so that nothing is drawn twice.
    var drawn: [Slot: String] = [:]
    /// The video playing in the video slot, or the audio in an index with no video (its node and
    /// serial).
    private(set) var playing: (node: Int, serial: Int)?
    /// How the video playing fits its zone.
    var videoFit: SMILDocument.Fit = .meet
    /// What the video slot's zone shows once its video's first frame is there.
    var pendingDrawing: ZonePlan.Drawing?
    /// Why the last effects could not all be shown (a file refused, a picture mpv could not read).
    public private(set) var problems: [String] = []

    /// Text zones are OSD overlays from this id on (the player's own overlays use 10…40).
    static let textIDBase = 100

    public init(
        _ document: SMILDocument, mpv: MPVHandle, canvas: Canvas,
        locate: @escaping (String) -> Result<String, MediaAddress.Refusal>
    ) {
        self.document = document
        plan = ZonePlan(document)
        self.mpv = mpv
        self.canvas = canvas
        self.locate = locate
    }

    /// Carries out `effects`, in order; each fault is kept in ``problems`` and the rest goes on.
    public func apply(_ effects: [SMILEffect]) {
        problems = []
        for effect in effects {
            switch effect {
            case .show(let slot, let s): show(s, in: slot)
            case .clear(let slot): show(nil, in: slot)
            case .hold(let slot, let held):
                if slot == plan.playerSlot, playing != nil { attempt { try mpv.set("pause", .flag(held)) } }
            case .prefetch, .restarted: break
            }
        }
    }

    /// The window turned or resized: every zone drawn again at its new place.
    public func relayout(_ canvas: Canvas, shown: [Slot: Shown]) {
        self.canvas = canvas
        drawn = [:]
        for slot in Set(plan.ids.keys).union(shown.keys) { show(shown[slot], in: slot) }
        if let video = plan.videoSlot { placeVideo(in: video) }
    }

    func show(_ s: Shown?, in slot: Slot) {
        if slot == plan.playerSlot, let s, s.media.isContinuous {
            // What the zone showed stays over the video until its first frame (``videoShows()``).
            pendingDrawing = slot == plan.videoSlot ? plan.drawing(s, in: slot, of: document) : nil
            playVideo(s, in: slot)
            return
        }
        if slot == plan.playerSlot { pendingDrawing = nil }
        // Drawn first: a picture covers the last video frame, and nothing black shows between.
        draw(plan.drawing(s, in: slot, of: document), in: slot)
        if slot == plan.playerSlot, playing != nil {
            playing = nil
            attempt { try mpv.command(["stop"]) }
        }
    }

    /// The video slot's video shows its first frame (or could not play): what covered the zone goes.
    public func videoShows() {
        guard let drawing = pendingDrawing, let slot = plan.videoSlot else { return }
        pendingDrawing = nil
        draw(drawing, in: slot)
    }

    /// Every zone cleared and the video stopped (the index is left, or replaced).
    public func clearAll() {
        pendingDrawing = nil
        for slot in plan.ids.keys { draw(.none, in: slot) }
        if playing != nil {
            playing = nil
            attempt { try mpv.command(["stop"]) }
        }
    }

    func playVideo(_ s: Shown, in slot: Slot) {
        guard playing.map({ $0.node != s.node || $0.serial != s.serial }) ?? true else { return }
        playing = (s.node, s.serial)
        switch locate(s.media.src) {
        case .failure(let refusal): problems.append(refusal.description)
        case .success(let path):
            let region: SMILDocument.Region? = if case .region(let i) = slot { document.layout.regions[i] } else { nil }
            videoFit = s.media.fit ?? region?.fit ?? .meet
            var options = ZonePlan.mpvOptions(fit: videoFit)
            // mpv 0.35 keeps no margin without `keepaspect` (the video would fill the window):
            // `fill` is the zone's own shape forced on the video instead (``placeVideo(in:)``).
            if videoFit == .fill { options["keepaspect"] = "yes" }
            for (name, value) in options.sorted(by: <) { attempt { try mpv.set(name, .string(value)) } }
            placeVideo(in: slot)
            var start = "pause=no"
            if s.position > 0 { start += ",start=\(s.position)" }
            attempt { try mpv.command(["loadfile", path, "replace", start]) }
        }
    }

    func placeVideo(in slot: Slot) {
        guard let zone = document.zone(slot, on: canvas) else { return }
        for (name, value) in SMILDocument.margins(of: zone, on: canvas).sorted(by: { $0.key < $1.key }) {
            attempt { try mpv.set(name, .double(value)) }
        }
        // The zone's shape as the video's, before the picture's turn (`video-rotate`).
        let (w, h) = canvas.angle % 180 == 0 ? (zone.width, zone.height) : (zone.height, zone.width)
        let aspect = videoFit == .fill && w > 0 && h > 0 ? "\(w):\(h)" : "-1"
        attempt { try mpv.set("video-aspect-override", .string(aspect)) }
    }

    func draw(_ drawing: ZonePlan.Drawing, in slot: Slot) {
        // A window not sized yet (no OSD size): drawn at ``relayout(_:shown:)`` once it is.
        guard let id = plan.ids[slot], let zone = document.zone(slot, on: canvas), zone.width > 0, zone.height > 0
        else { return }
        let key = "\(drawing) \(zone)"
        guard drawn[slot] != key else { return }
        drawn[slot] = key
        let textID = String(Self.textIDBase + id)
        switch drawing {
        case .none:
            attempt { try mpv.clearZone(id) }
            attempt { try mpv.command(["osd-overlay", textID, "none", ""]) }
        case .color(let hex):
            attempt { try mpv.command(["osd-overlay", textID, "none", ""]) }
            attempt { try mpv.draw(ZoneDrawing(id: id, zone, source: .color(hex))) }
        case .picture(let src, let options):
            switch locate(src) {
            case .failure(let refusal): problems.append(refusal.description)
            case .success(let path):
                attempt { try mpv.command(["osd-overlay", textID, "none", ""]) }
                // A file that is not there is named in the system's words (mpv says "loading failed").
                if let why = Player.whyUnplayable(path) {
                    problems.append(why)
                    attempt { try mpv.clearZone(id) }
                    return
                }
                attempt { try mpv.draw(ZoneDrawing(id: id, zone, source: .picture(path: path, options: options))) }
            }
        case .text(let src, let background):
            if let background {
                attempt { try mpv.draw(ZoneDrawing(id: id, zone, source: .color(background))) }
            } else {
                attempt { try mpv.clearZone(id) }
            }
            guard let words = text(of: src) else { return }
            let ass = ZoneText.ass(words, in: zone, on: canvas)
            let command = ["osd-overlay", textID, "ass-events", ass, String(canvas.width), String(canvas.height)]
            attempt { try mpv.command(command + [String(Self.textIDBase + id)]) }
        }
    }

    /// A text zone's words: a `data:` URL's own, else its file's (64 KiB at most); `nil` (and
    /// why, in ``problems``) when there are none.
    func text(of src: String) -> String? {
        if src.hasPrefix("data:") {
            guard let words = MediaAddress.dataText(src, limit: 65_536) else {
                problems.append("'\(src.prefix(64))': not a data URL of text")
                return nil
            }
            return words
        }
        switch locate(src) {
        case .failure(let refusal):
            problems.append(refusal.description)
            return nil
        case .success(let path):
            guard let words = readText(path, limit: 65_536) else {
                problems.append("\(path): " + (readProblem(path) ?? "cannot be read"))
                return nil
            }
            return words
        }
    }

    func attempt(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            problems.append("\(error)")
        }
    }
}

extension ZoneDrawing {
    init(id: Int, _ zone: Zone, source: ZoneSource) {
        self.init(id: id, x: zone.x, y: zone.y, width: zone.width, height: zone.height, source: source)
    }
}
