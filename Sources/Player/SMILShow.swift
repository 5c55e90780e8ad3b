import Files
import Foundation
import MPV
import OrientationCore
import Playback
import SMIL
import Wire

/// A SMIL index in the player's window: ``IndexShow``'s effects carried out (the index read, the
/// ``SMILStage`` on mpv, the player's events) and mpv's events told to it. It holds no rule: the
/// core says when to read, what plays, and which of mpv's ends counts.
final class SMILShow {
    private(set) var core: IndexShow
    private(set) var stage: SMILStage?
    private var mpv: MPVHandle
    private var canvas: Canvas
    private let outside: PlayerOutside
    private let say: (PlayerEvent) -> Void
    /// The mpv whose `eof-reached` is observed.
    private var observed: ObjectIdentifier?
    /// The keys the player's own hotkeys take (the index gets none of them).
    private let hotkeys: [String: Action]
    /// The keys bound for the index's triggers (given back to nothing when it goes).
    private var bound: [String] = []

    /// The click or tap an `activateEvent` waits for, and what it says.
    static let tapButton = "MBTN_LEFT"
    static let tapMessage = "upright-smil-tap"
    static let keyMessage = "upright-smil-key"
    /// mpv 0.35's own `audio-display`: an audio file's embedded picture is shown first.
    static let audioDisplay = "embedded-first"

    init(
        entry: String, mpv: MPVHandle, canvas: Canvas, hotkeys: [Action: [String]], outside: PlayerOutside,
        say: @escaping (PlayerEvent) -> Void
    ) {
        core = IndexShow(entry: entry, isFile: Playlist.localPath(entry) != nil)
        (self.mpv, self.canvas, self.outside, self.say) = (mpv, canvas, outside, say)
        var taken: [String: Action] = [:]
        for (action, keys) in hotkeys { for key in keys { taken[Self.keyName(key)] = action } }
        self.hotkeys = taken
        holdEnds()
    }

    var nextDeadline: Double? { core.nextDeadline }

    /// mpv holds a video's last frame and says when it reached the end: no loop of its playlist
    /// (the presentation repeats what repeats), `keep-open`, and its window kept while no video
    /// plays (a picture in the video's region).
    private func holdEnds() {
        do {
            try mpv.set("loop-playlist", .string("no"))
            try mpv.set("keep-open", .string("yes"))
            try mpv.set("force-window", .string("yes"))
            // An audio file's cover picture is no video: the zones show over black.
            try mpv.set("audio-display", .string("no"))
            if observed != ObjectIdentifier(mpv) {
                try mpv.observe("eof-reached", as: .flag)
                observed = ObjectIdentifier(mpv)
            }
        } catch {
            say(.problem("SMIL: mpv cannot hold a video's end: \(error)"))
        }
    }

    /// The index left: its zones cleared, and mpv's options as the settings have them.
    func end(_ settings: PlayerSettings) {
        stage?.clearAll()
        unbindTriggers()
        for name in ["keep-open", "force-window"] { try? mpv.set(name, .string(settings.mpv[name] ?? "no")) }
        try? mpv.set("audio-display", .string(settings.mpv["audio-display"] ?? Self.audioDisplay))
        try? mpv.set("loop-playlist", .string(settings.loop ? "inf" : "no"))
    }

    /// Reads the index (the file, or the cache's copy of the URL) and tells the core.
    func read(at m: Moment) {
        let read: IndexShow.Read
        if let path = Playlist.localPath(core.entry) ?? outside.cached?(core.entry) {
            if let bytes = readPrefix(path, limit: XMLTree.maxBytes + 1) {
                read = .bytes(bytes, file: path)
            } else {
                read = .missing("\(core.entry): " + (readProblem(path) ?? "cannot be read"), retry: true)
            }
        } else {
            read = .missing("\(core.entry): not downloaded yet", retry: false)
        }
        carry(core.handle(.read(read, m)))
    }

    /// Time passed: the index read when due, then what changed by now.
    func tick(_ m: Moment) {
        if core.readDue(at: m.elapsed) { read(at: m) }
        carry(core.handle(.tick(m)))
    }

    /// An mpv event: the presentation's video's start, end and first frame are the show's, and
    /// the rest of mpv's playlist events are no one else's. Returns whether the show took it.
    func takes(_ e: MPVEvent, at m: Moment) -> Bool {
        switch e {
        case .startFile(let entry): carry(core.handle(.started(entry: entry)))
        case .endFile(let reason, let error, let entry):
            // A failure in the system's words where it has some (mpv says only "loading failed").
            let failure =
                reason != "error"
                ? nil
                : core.videoSource.map { src in
                    Player.whyUnplayable(src) ?? "\(src): \(error ?? "unknown error")"
                }
            carry(core.handle(.ended(entry: entry, error: failure, m)))
        case .propertyChange("eof-reached", .flag(true)?): carry(core.handle(.endReached(m)))
        case .clientMessage(let args) where args.first == Self.keyMessage:
            let keys = core.presentation?.document.accessKeys ?? []
            if args.count == 2, let i = Int(args[1]), keys.indices.contains(i) {
                carry(core.handle(.event(.accesskey(keys[i]), m)))
            }
        case .clientMessage([Self.tapMessage]):
            if let p = mpv.mousePosition() { carry(core.handle(.tapped(x: p.x, y: p.y, canvas, m))) }
        case .playbackRestart: stage?.videoShows()
        case .propertyChange("eof-reached", _), .fileLoaded, .idle: break
        default: return false
        }
        return true
    }

    /// The window resized or turned: every zone at its new place. Whether anything moved.
    func follow(_ canvas: Canvas) -> Bool {
        guard canvas != self.canvas else { return false }
        self.canvas = canvas
        guard let stage, let p = core.presentation else { return false }
        stage.relayout(canvas, shown: p.shown)
        return true
    }

    /// A new mpv took over: it holds its videos' ends too, and the presentation shows on it as it
    /// stands (its video from where it was shown).
    func restarted(on mpv: MPVHandle) {
        self.mpv = mpv
        holdEnds()
        guard let doc = core.presentation?.document else { return }
        bound = []
        bindTriggers(doc)
        stage = makeStage(doc)
        stage?.relayout(canvas, shown: core.presentation?.shown ?? [:])
        carry(core.handle(.restarted))
    }

    private func makeStage(_ doc: SMILDocument) -> SMILStage {
        let (entry, cached) = (core.entry, outside.cached)
        return SMILStage(doc, mpv: mpv, canvas: canvas) { src in
            MediaAddress.resolve(src, against: entry).map { cached?($0) ?? $0 }
        }
    }

    private func carry(_ effects: [IndexShow.Effect]) {
        for effect in effects {
            switch effect {
            case .present(let doc):
                stage?.clearAll()
                stage = makeStage(doc)
                unbindTriggers()
                bindTriggers(doc)
            case .show(let shown):
                guard let stage else { continue }
                stage.apply(shown)
                if !stage.problems.isEmpty { carry(core.handle(.faults(stage.problems))) }
            case .videoShows: stage?.videoShows()
            case .problem(let text): say(.problem("SMIL: \(text)"))
            case .zone(let zone): say(.zone(zone))
            case .status(let status): say(.presentation(status))
            case .refresh(let seconds): outside.indexRefresh?(core.entry, seconds)
            }
        }
    }

    /// A named notification (`notify(name)`) to the index; whether anything in it waits for one.
    func notify(_ name: String, at m: Moment) -> Bool {
        guard core.waits(for: .notify(name)) else { return false }
        carry(core.handle(.event(.notify(name), m)))
        return true
    }

    /// The keys `doc`'s `accesskey` values wait for, and the tap its `activateEvent`s wait for,
    /// bound in mpv; not a key the player's own hotkeys take (said once, in words).
    private func bindTriggers(_ doc: SMILDocument) {
        var wanted = doc.accessKeys.enumerated().map { (Self.mpvKey($1), "script-message \(Self.keyMessage) \($0)") }
        if doc.waitsForActivation { wanted.append((Self.tapButton, "script-message \(Self.tapMessage)")) }
        for (key, command) in wanted {
            if let action = hotkeys[Self.keyName(key)] {
                say(.problem("SMIL: \(key) is the hotkey of '\(action.name)': the index's trigger on it is not bound"))
                continue
            }
            do {
                try mpv.command(["keybind", key, command])
                bound.append(key)
            } catch {
                say(.problem("SMIL: \(key) cannot be bound for the index: \(error)"))
            }
        }
    }

    private func unbindTriggers() {
        for key in bound { try? mpv.command(["keybind", key, "ignore"]) }
        bound = []
    }

    /// A key as mpv tells keys apart: a character as it is (`w` is not `W`), a name in any case.
    static func keyName(_ key: String) -> String { key.count == 1 ? key : key.uppercased() }

    /// An `accesskey` character as mpv names its key (`SPACE`, `SHARP`; a letter as it is).
    static func mpvKey(_ key: String) -> String {
        switch key {
        case " ": "SPACE"
        case "#": "SHARP"
        default: key
        }
    }
}
