public import OrientationCore

/// Where a group message goes, under the group's base topic (`PREFIX/sync/GROUP`): always
/// `BASE/SENDER/KIND`, and `BASE/SENDER/KIND/TO` for a message to one node. The sender is known by
/// its topic alone, never by a name in the payload, so that a broker's ACL can bind each node to
/// its own topics (mosquitto: `pattern write PREFIX/sync/GROUP/%u/#`).
public struct GroupAddress: Sendable, Hashable {
    /// The kinds of message.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// What the node follows (retained); empty: it left.
        case node
        /// A heartbeat, every second.
        case beat
        /// One exchange of clocks: a ping to one node, its pong back.
        case ping, pong
        /// The leader's schedule (retained).
        case schedule
        /// A clip every screen plays from one instant.
        case clip
        /// The wall's orientation as a node's accelerometer read it (retained).
        case orientation

        /// A ping and a pong name the node they go to.
        var addressed: Bool { self == .ping || self == .pong }
        /// Retained by the broker: state, never a command.
        public var retained: Bool { self == .node || self == .schedule || self == .orientation }
    }

    public var from: String
    public var kind: Kind
    /// The node a ping or a pong goes to.
    public var to: String?

    public init(from: String, kind: Kind, to: String? = nil) {
        self.from = from
        self.kind = kind
        self.to = to
    }

    /// The topic under `base`.
    public func topic(base: String) -> String {
        base + "/" + from + "/" + kind.rawValue + (to.map { "/" + $0 } ?? "")
    }

    /// The address of `topic`, or `nil` when it is not one of the group's (another base, an
    /// unknown kind, a level too many or too few, an empty or over-long name).
    public init?(topic: String, base: String) {
        guard topic.utf8.count <= base.utf8.count + 1 + 2 * GroupWire.maxName + 16, topic.hasPrefix(base + "/") else {
            return nil
        }
        let levels = topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 2, let kind = Kind(rawValue: String(levels[1])),
            levels.count == (kind.addressed ? 3 : 2),
            levels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= GroupWire.maxName })
        else { return nil }
        self.init(from: String(levels[0]), kind: kind, to: kind.addressed ? String(levels[2]) : nil)
    }

    /// The subscriptions a node named `me` needs (and whether each is at most once).
    public static func subscriptions(base: String, me: String) -> [(pattern: String, atMostOnce: Bool)] {
        [
            (base + "/+/node", false), (base + "/+/schedule", false), (base + "/+/orientation", false),
            (base + "/+/clip", false), (base + "/+/beat", true), (base + "/+/ping/" + me, true),
            (base + "/+/pong/" + me, true),
        ]
    }
}

/// What a group message says, its words parsed (the payload after its seal, when sealed).
public enum GroupWord: Sendable, Hashable {
    /// `node`: what the node follows; `nil`: it left.
    case presence(String?)
    /// `beat`: this process's mark (another process under the same name has another).
    case beat(mark: String)
    /// `ping`: `ID T1`, the ping's id and when it went (the sender's clock).
    case ping(id: UInt64, sent: Double)
    /// `pong`: `ID T1 T2 T3`, the ping's id and time, when it came and when the answer went
    /// (the answerer's clock).
    case pong(id: UInt64, sent: Double, received: Double, answered: Double)
    /// `schedule`: `ITEM AT`.
    case schedule(ScheduleAnchor)
    /// `clip`: `AT NAME`.
    case clip(name: String, at: Double)
    /// `orientation`: `ORIENTATION AT`.
    case orientation(DeviceOrientation, at: Double)
}

/// The group's words on the wire: plain text, one message a line, parsed by code that ends in a
/// value or an error for every input (it is fuzzed).
public enum GroupWire {
    /// The longest device name or group level taken (bytes).
    public static let maxName = 64
    /// The longest payload taken (bytes): a clip's name and a seal fit many times over.
    public static let maxPayload = 512

    /// The text of `word`.
    public static func text(_ word: GroupWord) -> String {
        switch word {
        case .presence(let follow): follow ?? ""
        case .beat(let mark): mark
        case .ping(let id, let sent): "\(id) \(sent)"
        case .pong(let id, let sent, let received, let answered): "\(id) \(sent) \(received) \(answered)"
        case .schedule(let anchor): "\(anchor.item) \(anchor.at)"
        case .clip(let name, let at): "\(at) \(name)"
        case .orientation(let o, let at): "\(o.name) \(at)"
        }
    }

    /// The word a message of `kind` says in `text`; why not, when it says none.
    public static func word(_ kind: GroupAddress.Kind, _ text: Substring) -> Result<GroupWord, GroupRejection> {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        func time(_ s: Substring) -> Double? {
            guard s.utf8.count <= 32, let v = Double(s), v.isFinite, v >= 0 else { return nil }
            return v
        }
        let word: GroupWord? =
            switch kind {
            case .node: text.isEmpty ? .presence(nil) : words.count == 1 ? .presence(String(text)) : nil
            case .beat: !text.isEmpty && words.count == 1 ? .beat(mark: String(text)) : nil
            case .ping:
                words.count == 2
                    ? UInt64(words[0]).flatMap { id in time(words[1]).map { .ping(id: id, sent: $0) } } : nil
            case .pong:
                words.count == 4
                    ? UInt64(words[0]).flatMap { id in
                        time(words[1]).flatMap { t1 in
                            time(words[2]).flatMap { t2 in
                                time(words[3]).map { .pong(id: id, sent: t1, received: t2, answered: $0) }
                            }
                        }
                    } : nil
            case .schedule:
                words.count == 2
                    ? Int(words[0]).flatMap { item in
                        item >= 0 && item < 1_000_000
                            ? time(words[1]).map { .schedule(ScheduleAnchor(item: item, at: $0)) } : nil
                    } : nil
            case .clip:
                words.count >= 2 && !words[1].isEmpty
                    ? time(words[0]).map { .clip(name: String(text.dropFirst(words[0].count + 1)), at: $0) } : nil
            case .orientation:
                words.count == 2
                    ? DeviceOrientation(name: String(words[0])).flatMap { o in
                        time(words[1]).map { .orientation(o, at: $0) }
                    } : nil
            }
        return word.map { .success($0) } ?? .failure(.malformed)
    }
}

/// Why a message of the group changed nothing.
public enum GroupRejection: String, Sendable, Hashable, CaseIterable, Error {
    /// Not one of the group's words (garbage, an empty or over-long payload).
    case malformed = "malformed"
    /// No seal, or one whose code is not the group key's.
    case unsigned = "no valid code"
    /// Sealed longer ago than the freshness window (or ahead of this node's clock by more).
    case stale = "too old"
    /// A seal seen before.
    case replayed = "seen before"
    /// Not from the node whose word it is (a schedule from a node that does not lead, a pong
    /// that answers no ping of this node's).
    case notTheirs = "not the sender's to say"
}

/// Which item of a playlist starts when, on the group's clock: a leader's word (`follow =
/// "leader"`: its next item, ahead of its start), or the first item at the Unix epoch (following
/// the clock). Each node lays its own playlist out from it.
public struct ScheduleAnchor: Sendable, Hashable {
    /// The item's index in the playlist (0 first; counted round a shorter playlist).
    public var item: Int
    /// When it starts (group time, Unix seconds).
    public var at: Double

    public init(item: Int, at: Double) {
        self.item = item
        self.at = at
    }
}
