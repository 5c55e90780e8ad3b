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

    /// What an action's argument is.
    public enum Argument: String, Sendable, Hashable {
        case orientation
        case scene
        case clip

        /// `an orientation`, `a scene`, `a clip scene`.
        public var phrase: String {
            switch self {
            case .orientation: "an orientation"
            case .scene: "a scene"
            case .clip: "a clip scene"
            }
        }
    }

    /// The canonical names, each with the argument it takes.
    public static let vocabulary: [(name: String, argument: Argument?)] = [
        ("fullscreen", nil), ("lock", nil), ("unlock", nil), ("toggle-lock", nil), ("rotate-to", .orientation),
        ("rotate", nil), ("accept-suggestion", nil), ("next", nil), ("previous", nil), ("scene-push", .scene),
        ("scene-pop", nil), ("scene-present", .scene), ("scene-dismiss", nil), ("play", .clip),
    ]

    /// Every canonical name, for help and error messages.
    public static var names: [String] { vocabulary.map(\.name) }

    /// Older or shorter spellings, read as the canonical name they map to.
    public static let aliases: [String: String] = [
        "prev": "previous", "push": "scene-push", "pop": "scene-pop", "present": "scene-present",
        "dismiss": "scene-dismiss",
    ]

    /// The canonical name (`rotate-to`, `scene-push`, ...).
    public var name: String {
        switch self {
        case .fullscreen: "fullscreen"
        case .lock: "lock"
        case .unlock: "unlock"
        case .toggleLock: "toggle-lock"
        case .rotateTo: "rotate-to"
        case .rotate: "rotate"
        case .acceptSuggestion: "accept-suggestion"
        case .next: "next"
        case .previous: "previous"
        case .scenePush: "scene-push"
        case .scenePop: "scene-pop"
        case .scenePresent: "scene-present"
        case .sceneDismiss: "scene-dismiss"
        case .play: "play"
        }
    }

    /// The argument as written (`landscape-left`, a scene's name), if the action takes one.
    public var argument: String? {
        switch self {
        case .rotateTo(let o): o.name
        case .scenePush(let s), .scenePresent(let s), .play(let s): s
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
        return vocabulary.contains { $0.name == w } ? w : nil
    }

    /// Parses an action from its name and argument.
    public static func parse(name: String, argument: String?) -> Result<Action, ActionError> {
        guard let canonical = canonicalName(name), let entry = vocabulary.first(where: { $0.name == canonical }) else {
            return .failure(.unknown(name))
        }
        guard let kind = entry.argument else {
            if let argument { return .failure(.unexpectedArgument(canonical, argument)) }
            return .success(simple(canonical))
        }
        guard let argument, !argument.isEmpty else { return .failure(.missingArgument(canonical, kind)) }
        switch kind {
        case .orientation:
            guard let o = InterfaceOrientation(name: argument) else {
                return .failure(.badArgument(canonical, argument, kind))
            }
            return .success(.rotateTo(o))
        case .scene:
            return .success(canonical == "scene-push" ? .scenePush(argument) : .scenePresent(argument))
        case .clip:
            return .success(.play(argument))
        }
    }

    /// Parses an action written as words: `["rotate-to", "landscape-left"]`.
    public static func parse(words: [String]) -> Result<Action, ActionError> {
        guard let name = words.first else { return .failure(.unknown("")) }
        if words.count > 2 { return .failure(.unexpectedArgument(name, words.dropFirst(2).joined(separator: " "))) }
        return parse(name: name, argument: words.count == 2 ? words[1] : nil)
    }

    private static func simple(_ name: String) -> Action {
        switch name {
        case "fullscreen": .fullscreen
        case "lock": .lock
        case "unlock": .unlock
        case "toggle-lock": .toggleLock
        case "rotate": .rotate
        case "accept-suggestion": .acceptSuggestion
        case "next": .next
        case "previous": .previous
        case "scene-pop": .scenePop
        default: .sceneDismiss
        }
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
        case .rotate, .next, .previous: nil
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
