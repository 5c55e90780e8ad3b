/// The one vocabulary of actions: what a hotkey, `upright ctl`, the dry run's events file and any
/// later input (a button, a remote) may ask for. Every action is reachable from each of them, and
/// a word that is not in the vocabulary is an error where it is written.
///
/// An action is written as its name and, for some, one argument: `rotate-to landscape-left`,
/// `scene-push menu`. ``name`` is the canonical spelling; ``aliases`` are older ones still read.
public enum Action: Sendable, Hashable {
    /// Inline ⇄ full screen.
    case fullscreen
    case lock
    case unlock
    case toggleLock
    /// Turn to an orientation now (forced), still inside the scene's mask.
    case rotateTo(InterfaceOrientation)
    /// Turn to the next orientation, clockwise, that the scene on top allows (a "rotate" button).
    case rotate
    /// Accept the rotate suggestion offered while locked.
    case acceptSuggestion
    /// The next or the previous entry of the playlist.
    case next
    case previous
    case scenePush(String)
    case scenePop
    /// Show a scene modally (a menu, a message).
    case scenePresent(String)
    /// Remove the topmost modal scene.
    case sceneDismiss
    /// Play a clip scene's clip once, in its scene, then return to the loop.
    case play(String)
    /// Follow the screen's power plan (`on`), or set it aside, the screen on, until it is followed
    /// again (`off`).
    case powerPlan(Bool)
    /// A person is there (a motion sensor's key, `command/presence`): the screen that slept for
    /// want of one (`[screen] idle_off`) wakes, and the wait starts again.
    case presence
    /// A named notification to the SMIL index playing: what waits for `notify(name)` begins or ends.
    case notify(String)
    /// The sound's volume, 0 to 100 (mpv's `volume`).
    case volume(Int)
    /// The sound off (`on`), or on again (`off`).
    case mute(Bool)
    /// Words shown over the picture for a while (a toast), ``toastLimit`` characters at most.
    case toast(String)
    /// The screen's brightness, 0 to 100 (its backlight, or a monitor's through DDC/CI).
    case brightness(Int)

    /// The longest toast, in characters: a message from MQTT or the page is bounded where it enters.
    public static let toastLimit = 200

    /// What an action's argument is.
    public enum Argument: String, Sendable, Hashable {
        case orientation
        case scene
        case clip
        case onOff
        case name
        case percent
        case text

        /// `an orientation`, `a scene`, `a clip scene`, `on or off`.
        public var phrase: String {
            switch self {
            case .orientation: "an orientation"
            case .scene: "a scene"
            case .clip: "a clip scene"
            case .onOff: "on or off"
            case .name: "a name"
            case .percent: "a number from 0 to 100"
            case .text: "words"
            }
        }
    }

    /// The one table of actions: each kind once, with its canonical name (the raw value) and the
    /// argument it takes; ``Action/kind`` and ``Action/init(kind:argument:)`` map it to the cases.
    public enum Kind: String, CaseIterable, Sendable, Hashable {
        case fullscreen, lock, unlock
        case toggleLock = "toggle-lock"
        case rotateTo = "rotate-to"
        case rotate
        case acceptSuggestion = "accept-suggestion"
        case next, previous
        case scenePush = "scene-push"
        case scenePop = "scene-pop"
        case scenePresent = "scene-present"
        case sceneDismiss = "scene-dismiss"
        case play
        case powerPlan = "power-plan"
        case presence
        case notify
        case volume, mute, toast, brightness

        /// What its argument is (`nil`: it takes none).
        public var argument: Argument? {
            switch self {
            case .rotateTo: .orientation
            case .scenePush, .scenePresent: .scene
            case .play: .clip
            case .powerPlan: .onOff
            case .notify: .name
            case .volume, .brightness: .percent
            case .mute: .onOff
            case .toast: .text
            default: nil
            }
        }
    }

    /// The canonical names, each with the argument it takes.
    public static let vocabulary: [(name: String, argument: Argument?)] = Kind.allCases.map {
        ($0.rawValue, $0.argument)
    }

    /// Every canonical name, for help and error messages.
    public static var names: [String] { vocabulary.map(\.name) }

    /// Older or shorter spellings, read as the canonical name they map to.
    public static let aliases: [String: String] = [
        "prev": "previous", "push": "scene-push", "pop": "scene-pop", "present": "scene-present",
        "dismiss": "scene-dismiss",
    ]

    /// The action's kind, in the one table.
    public var kind: Kind {
        switch self {
        case .fullscreen: .fullscreen
        case .lock: .lock
        case .unlock: .unlock
        case .toggleLock: .toggleLock
        case .rotateTo: .rotateTo
        case .rotate: .rotate
        case .acceptSuggestion: .acceptSuggestion
        case .next: .next
        case .previous: .previous
        case .scenePush: .scenePush
        case .scenePop: .scenePop
        case .scenePresent: .scenePresent
        case .sceneDismiss: .sceneDismiss
        case .play: .play
        case .powerPlan: .powerPlan
        case .presence: .presence
        case .notify: .notify
        case .volume: .volume
        case .mute: .mute
        case .toast: .toast
        case .brightness: .brightness
        }
    }

    /// The action of `kind` with `argument` (`nil` when the argument does not fit the kind).
    public init?(kind: Kind, argument: String?) {
        switch kind {
        case .fullscreen: self = .fullscreen
        case .lock: self = .lock
        case .unlock: self = .unlock
        case .toggleLock: self = .toggleLock
        case .rotateTo:
            guard let o = argument.flatMap(InterfaceOrientation.init(name:)) else { return nil }
            self = .rotateTo(o)
        case .rotate: self = .rotate
        case .acceptSuggestion: self = .acceptSuggestion
        case .next: self = .next
        case .previous: self = .previous
        case .scenePush, .scenePresent, .play:
            guard let a = argument, !a.isEmpty else { return nil }
            self = kind == .play ? .play(a) : kind == .scenePush ? .scenePush(a) : .scenePresent(a)
        case .scenePop: self = .scenePop
        case .sceneDismiss: self = .sceneDismiss
        case .powerPlan:
            guard let on = argument.flatMap(Self.onOff) else { return nil }
            self = .powerPlan(on)
        case .presence: self = .presence
        case .notify:
            guard let a = argument, !a.isEmpty else { return nil }
            self = .notify(a)
        case .volume, .brightness:
            // A whole number; "42.0" too (Home Assistant's number sends its value as a float).
            guard let v = argument.flatMap({ Double($0) }), (0...100).contains(v), v == v.rounded() else { return nil }
            self = kind == .volume ? .volume(Int(v)) : .brightness(Int(v))
        case .mute:
            guard let on = argument.flatMap(Self.onOff) else { return nil }
            self = .mute(on)
        case .toast:
            let words = String((argument ?? "").drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            guard !words.isEmpty, words.count <= Self.toastLimit, !words.contains(where: { $0.isNewline }) else {
                return nil
            }
            self = .toast(words)
        }
    }

    /// `on` or `off` (any case).
    static func onOff(_ word: String) -> Bool? {
        switch word.lowercased() {
        case "on": true
        case "off": false
        default: nil
        }
    }

    /// The canonical name (`rotate-to`, `scene-push`, ...).
    public var name: String { kind.rawValue }

    /// The argument as written (`landscape-left`, a scene's name), if the action takes one.
    public var argument: String? {
        switch self {
        case .rotateTo(let o): o.name
        case .scenePush(let s), .scenePresent(let s), .play(let s), .notify(let s), .toast(let s): s
        case .powerPlan(let on), .mute(let on): on ? "on" : "off"
        case .volume(let v), .brightness(let v): String(v)
        default: nil
        }
    }

    /// The action as it is written: its name, then its argument.
    public var words: [String] { [name] + (argument.map { [$0] } ?? []) }

    /// The canonical name for `word` (an alias or the name itself, `_` read as `-`); `nil` when the
    /// word is not in the vocabulary.
    public static func canonicalName(_ word: String) -> String? {
        let w = word.replacingUnderscores()
        if let a = aliases[w] { return a }
        return Kind(rawValue: w) != nil ? w : nil
    }

    /// Parses an action from its name and argument.
    public static func parse(name: String, argument: String?) -> Result<Action, ActionError> {
        guard let canonical = canonicalName(name), let kind = Kind(rawValue: canonical) else {
            return .failure(.unknown(name))
        }
        guard let takes = kind.argument else {
            if let argument { return .failure(.unexpectedArgument(canonical, argument)) }
            return Action(kind: kind, argument: nil).map { .success($0) } ?? .failure(.unknown(name))
        }
        guard let argument, !argument.isEmpty else { return .failure(.missingArgument(canonical, takes)) }
        guard let action = Action(kind: kind, argument: argument) else {
            return .failure(.badArgument(canonical, argument, takes))
        }
        return .success(action)
    }

    /// Parses an action written as words: `["rotate-to", "landscape-left"]`.
    public static func parse(words: [String]) -> Result<Action, ActionError> {
        guard let name = words.first else { return .failure(.unknown("")) }
        if words.count > 2 { return .failure(.unexpectedArgument(name, words.dropFirst(2).joined(separator: " "))) }
        return parse(name: name, argument: words.count == 2 ? words[1] : nil)
    }

    /// The policy's command for this action; `nil` for the player's own (`next`, `previous`) and
    /// for `rotate`, whose target depends on the scene on top.
    public var policyCommand: PolicyCommand? {
        switch self {
        case .fullscreen: .fullscreen
        case .lock: .lock
        case .unlock: .unlock
        case .toggleLock: .toggleLock
        case .rotateTo(let o): .rotateTo(o)
        case .acceptSuggestion: .acceptSuggestion
        case .scenePush(let s): .push(s)
        case .scenePop: .pop
        case .scenePresent(let s): .present(s)
        case .sceneDismiss: .dismiss
        case .play(let s): .play(s)
        case .rotate, .next, .previous, .powerPlan, .presence, .notify, .volume, .mute, .toast, .brightness: nil
        }
    }
}

/// Why words are not an action. Each place that reads actions words it for its own syntax (a
/// control request's `"argument"`, an events file's `"orientation"`, a hotkey's key).
public enum ActionError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknown(String)
    case missingArgument(String, Action.Argument)
    case badArgument(String, String, Action.Argument)
    case unexpectedArgument(String, String)

    /// What the argument of `kind` may be, in words.
    public static func expected(_ kind: Action.Argument) -> String {
        switch kind {
        case .orientation: "one of: " + InterfaceOrientation.allNames.joined(separator: ", ")
        case .scene: "a scene's name"
        case .clip: "the name of a scene with a clip ([scenes.NAME] clip = \"FILE\")"
        case .onOff: "on or off"
        case .name: "the name a SMIL index's notify(NAME) waits for"
        case .percent: "a whole number from 0 to 100"
        case .text: "words on one line, \(Action.toastLimit) characters at most"
        }
    }

    public var description: String {
        switch self {
        case .unknown(let name):
            "unknown action '\(name)'; expected one of: \(Action.names.joined(separator: ", "))"
        case .missingArgument(let name, let kind):
            "\(name) needs \(kind.phrase): \(Self.expected(kind))"
        case .badArgument(let name, let got, let kind):
            "\(name) needs \(kind.phrase), \(Self.expected(kind)); got '\(got)'"
        case .unexpectedArgument(let name, let got):
            "\(name) takes no argument; got '\(got)'"
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
