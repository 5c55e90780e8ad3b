import Config
import Foundation
import Logging
import MQTT
import OrientationCore
import Session
import Settings
import Sync
import Synchronization

/// This screen as a node of a wall's sync group on `[mqtt]`'s broker: it says it is there, finds
/// the others, and keeps an estimate of the group's clock (the reference's: the least device name
/// heard, ``GroupMembers``) from NTP-style exchanges with it. Topics, under `PREFIX/sync/GROUP/`:
/// - `node/DEVICE`: what the node follows (retained), emptied by its last will and at its end;
/// - `beat/DEVICE`: a heartbeat every second (at most once, as the exchanges);
/// - `ping/DEVICE` ← `FROM ID T1`; `pong/FROM` ← `DEVICE ID T1 T2 T3`: one exchange of clocks.
/// - `schedule` (`follow = "leader"`, retained): `LEADER ITEM AT`, the playlist's item (0 first)
///   that starts at group time `AT`: the next one, a second before it starts (a step: the one
///   stepped to, now). The leader (the reference) writes it; a new leader keeps it and goes on.
/// - `clip`: `DEVICE AT NAME`, a clip scene asked of a node, played by every node from group
///   time `AT` (half a second on: each loads it and holds it at its first frame meanwhile).
/// - `orientation` (retained): `DEVICE ORIENTATION AT`, the wall's orientation as a node's
///   accelerometer reads it, to be taken by every node at group time `AT` (a quarter second
///   after it was read), so that the whole wall turns at one instant.
/// A broker that is down leaves the estimate as it was: the wall plays on its own clocks and
/// is whole again when the broker returns.
final class SyncLink: Sendable {
    let settings: SyncSettings
    let mqtt: MQTTSettings
    let logger: Logger
    private let state: Mutex<State>
    private let start = ContinuousClock.now
    /// This process's mark in its heartbeats: another node's under the same name is told apart.
    private let mark = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    /// The connection while it runs (for ``announce(_:)``).
    private let client = Mutex<MQTTClient?>(nil)

    struct State {
        var members: GroupMembers
        /// `nil` until the others have had time to be heard (a second and a half).
        var reference: String?
        var offset = ClockOffset()
        /// The estimate before the reference changed, kept until the new one answers.
        var previous: Double?
        /// Pings sent and not answered, by id: when.
        var pending: [Int: Double] = [:]
        var nextID = 0
        var broker = "connecting"
        var exchangesSinceChange = 0
        /// `follow = "leader"`: the item that starts (or started) at a group time, and who said so
        /// (the retained `schedule`).
        var anchor: ScheduleAnchor?
        var leader: String?
        /// Another node's heartbeat came under this node's name.
        var sameName = false
        /// The wall's orientation last shared, and by whom.
        var orientation: (device: DeviceOrientation, from: String)?
    }

    /// The wall's orientation, each with the group time at which every node takes it: this
    /// node's accelerometer's (``share(_:)``) and the others'.
    let turns: AsyncStream<(orientation: DeviceOrientation, at: Double)>
    private let turnsInput: AsyncStream<(orientation: DeviceOrientation, at: Double)>.Continuation
    /// How long after its reading the group takes an orientation: the broker's delivery to every node.
    static let turnLead = 0.25
    /// The clip scenes asked of the group, each with the group time every node starts it at.
    let clips: AsyncStream<(name: String, at: Double)>
    private let clipsInput: AsyncStream<(name: String, at: Double)>.Continuation
    /// How far ahead a clip is started: the broker's delivery, and each node's load of it.
    static let clipLead = 0.5

    init(settings: SyncSettings, mqtt: MQTTSettings, logger: Logger) {
        self.settings = settings
        self.mqtt = mqtt
        self.logger = logger
        state = Mutex(State(members: GroupMembers(me: mqtt.device), reference: nil))
        (turns, turnsInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(8))
        (clips, clipsInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(8))
    }

    /// A clip scene asked of this node: every node of the group plays it from one instant, this
    /// one too (on its own when the broker is away). Returns that instant (group time).
    @discardableResult
    func share(clip name: String) -> Double {
        let at = (groupTime() ?? MQTTClient.systemTime()) + Self.clipLead
        clipsInput.yield((name, at))
        client.withLock { $0 }?.publish(base + "/clip", "\(me) \(at) \(name)")
        return at
    }

    /// This node's accelerometer read `orientation`: the whole wall takes it, this node too, at
    /// one instant a little ahead (this node on its own when the broker is away).
    func share(_ orientation: DeviceOrientation) {
        let at = (groupTime() ?? MQTTClient.systemTime()) + Self.turnLead
        state.withLock { $0.orientation = (orientation, me) }
        turnsInput.yield((orientation, at))
        client.withLock { $0 }?.publish(base + "/orientation", "\(me) \(orientation.name) \(at)", retain: true)
    }

    var base: String { "\(mqtt.prefix)/sync/\(settings.group)" }
    var me: String { mqtt.device }

    /// Seconds on this process's monotonic clock.
    private var uptime: Double { start.duration(to: .now).seconds }

    /// The group's time now (Unix seconds): this node's clock corrected by its estimate; this
    /// node's own clock when it is the reference, or when no reference has answered within 5 s
    /// (no broker: the wall plays on its own clocks). `nil` before that.
    func groupTime() -> Double? {
        let now = MQTTClient.systemTime()
        let up = uptime
        return state.withLock { s -> Double? in
            if s.reference == me { return now }
            if let o = s.offset.offset(at: now) ?? s.previous { return now + o }
            return up > 5 ? now : nil
        }
    }

    /// Which item starts when, on the group's clock: the first item at the Unix epoch when
    /// following the clock; the leader's word when following a leader (`nil` until it is known).
    func anchor() -> ScheduleAnchor? {
        guard settings.follow == .leader else { return ScheduleAnchor(item: 0, at: 0) }
        return state.withLock { $0.anchor }
    }

    /// This node leads its group (`follow = "leader"` and the least name heard).
    var leads: Bool { settings.follow == .leader && state.withLock { $0.reference == me } }

    /// Who leads, for a follower's refusal; `nil` when this node leads or follows the clock.
    var ledBy: String? {
        guard settings.follow == .leader else { return nil }
        return state.withLock { s in s.reference == me ? nil : s.leader ?? s.reference }
    }

    /// The leader's word: `anchor.item` starts at `anchor.at` (its next item, ahead; the item a
    /// step moved to, now). Published when this node leads and it is news.
    func announce(_ anchor: ScheduleAnchor) {
        let news = state.withLock { s -> Bool in
            guard s.reference == me, s.anchor != anchor || s.leader != me else { return false }
            s.anchor = anchor
            s.leader = me
            return true
        }
        guard news, settings.follow == .leader else { return }
        client.withLock { $0 }?.publish(base + "/schedule", "\(me) \(anchor.item) \(anchor.at)", retain: true)
    }

    /// The group as `ctl status` shows it (the player adds how it follows).
    func report() -> SyncReport {
        let now = MQTTClient.systemTime()
        let up = uptime
        return state.withLock { s in
            var r = SyncReport(group: settings.group, follow: settings.follow.rawValue, device: me)
            r.members = s.members.members(at: up)
            r.reference = s.reference
            r.broker = s.broker
            if s.reference == me {
                r.offsetMS = 0
            } else if let o = s.offset.offset(at: now) ?? s.previous {
                r.offsetMS = Self.milliseconds(-o)
            }
            r.roundTripMS = s.offset.quickest.map(Self.milliseconds)
            if settings.follow == .leader { r.leader = s.leader }
            r.orientation = s.orientation.map {
                "\($0.device.name) (\($0.from == me ? "this node's sensor" : $0.from))"
            }
            if s.sameName { r.problem = Self.sameNameProblem(me) }
            return r
        }
    }

    static func sameNameProblem(_ name: String) -> String {
        "another node of the group is named \(name) too: give each screen its own [mqtt] device (nodes on one machine share its host name)"
    }

    static func milliseconds(_ seconds: Double) -> Double { (seconds * 10_000).rounded() / 10 }

    /// Runs until cancelled: the connection, the heartbeats and the exchanges.
    func run() async {
        guard case .success(var endpoint) = MQTTEndpoint.parse(mqtt.url) else { return }
        if !mqtt.caFile.isEmpty { endpoint.caFile = mqtt.caFile }
        if !mqtt.username.isEmpty { endpoint.username = mqtt.username }
        endpoint.password = MQTTPassword.read(mqtt)
        let client: MQTTClient
        do {
            client = try MQTTClient(
                id: "upright-\(me)-sync-\(getpid())", endpoint: endpoint, will: (base + "/node/" + me, ""))
        } catch {
            logger.error("sync: \(error); the wall's group is off")
            return
        }
        logger.info("sync: group \(settings.group) as \(me) through \(mqtt.url)")
        self.client.withLock { $0 = client }
        let beats = Task { [self] in
            // A quarter-second tick: the heartbeat at one, a ping half a second later, so that no
            // packet of this node's goes just ahead of the answer.
            var tick = 0
            while !Task.isCancelled {
                if tick % 4 == 0 { client.publish(base + "/beat/" + me, mark, atMostOnce: true) }
                if tick % 4 == 2 { ping(client, tick: tick) }
                if tick % 2 == 0, settings.follow == .leader { lead(client) }
                tick += 1
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer {
            beats.cancel()
            self.client.withLock { $0 = nil }
            client.close(finalMessage: (base + "/node/" + me, ""))
        }
        var said: String?
        for await event in client.events {
            if Task.isCancelled { break }
            switch event {
            case .connected:
                logger.notice("sync: connected to \(mqtt.url)")
                said = nil
                state.withLock { $0.broker = "connected to \(mqtt.url)" }
                client.subscribe(base + "/node/+")
                if settings.follow == .leader { client.subscribe(base + "/schedule") }
                client.subscribe(base + "/orientation")
                client.subscribe(base + "/clip")
                for topic in ["beat/+", "ping/" + me, "pong/" + me] { client.subscribeAtMostOnce(base + "/" + topic) }
                client.publish(base + "/node/" + me, settings.follow.rawValue, retain: true)
            case .disconnected(let why):
                if why != said {
                    logger.warning("sync: \(mqtt.url): \(why); the wall plays on its own clocks meanwhile")
                }
                said = why
                state.withLock { $0.broker = "\(mqtt.url): \(why); trying again" }
            case .message(let topic, let payload, let at):
                handle(topic: topic, payload: String(decoding: payload, as: UTF8.self), at: at, client: client)
            }
        }
    }

    /// One message of the group.
    private func handle(topic: String, payload: String, at: Double, client: MQTTClient) {
        guard topic.hasPrefix(base + "/") else { return }
        let path = topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        if path == ["clip"] {
            // Another node's (this node's own has been taken already); one long gone is not played.
            let words = payload.split(separator: " ", maxSplits: 2)
            guard words.count == 3, words[0] != me, let at = Double(words[1]), at.isFinite,
                at > (groupTime() ?? MQTTClient.systemTime()) - 5
            else { return }
            clipsInput.yield((String(words[2]), at))
            return
        }
        if path == ["orientation"] {
            // Another node's reading (this node's own has been taken already).
            let words = payload.split(separator: " ")
            guard words.count == 3, words[0] != me, let o = DeviceOrientation(name: String(words[1])),
                let at = Double(words[2]), at.isFinite
            else { return }
            state.withLock { $0.orientation = (o, String(words[0])) }
            turnsInput.yield((o, at))
            return
        }
        if path == ["schedule"] {
            let words = payload.split(separator: " ")
            guard words.count == 3, let item = Int(words[1]), item >= 0, let at = Double(words[2]), at.isFinite else {
                return
            }
            state.withLock {
                $0.leader = String(words[0])
                $0.anchor = ScheduleAnchor(item: item, at: at)
            }
            return
        }
        guard path.count == 2 else { return }
        let (kind, device) = (path[0], String(path[1]))
        let up = uptime
        switch kind {
        case "beat":
            if device == me, !payload.isEmpty, payload != mark {
                let first = state.withLock { s in
                    defer { s.sameName = true }
                    return !s.sameName
                }
                if first { logger.error("sync: \(Self.sameNameProblem(me))") }
                return
            }
            state.withLock { $0.members.heard(device, at: up) }
        case "node": if payload.isEmpty { state.withLock { $0.members.left(device) } }
        case "ping":
            // `FROM ID T1`: answered at once, with when it came and when the answer goes.
            let words = payload.split(separator: " ")
            guard words.count == 3, device == me else { return }
            client.publish(
                base + "/pong/" + words[0], "\(me) \(words[1]) \(words[2]) \(at) \(MQTTClient.systemTime())",
                atMostOnce: true)
        case "pong":
            let words = payload.split(separator: " ")
            guard words.count == 5, device == me, let id = Int(words[1]), let t2 = Double(words[3]),
                let t3 = Double(words[4])
            else { return }
            let from = String(words[0])
            state.withLock { s in
                s.members.heard(from, at: up)
                guard let sent = s.pending.removeValue(forKey: id), from == s.reference else { return }
                s.offset.add(ClockExchange(sent: sent, remoteReceived: t2, remoteSent: t3, received: at))
                s.exchangesSinceChange += 1
            }
        default: break
        }
    }

    /// The leader's part, every half second: a group without a schedule gets one (its round starting
    /// now); a schedule another leader wrote is kept, and said again as this node's. Only after
    /// 2.5 s, when the retained schedule has arrived.
    private func lead(_ client: MQTTClient) {
        guard uptime >= 2.5 else { return }
        let now = MQTTClient.systemTime()
        let word: String? = state.withLock { s in
            guard s.reference == me else { return nil }
            if s.anchor == nil { s.anchor = ScheduleAnchor(item: 0, at: (now * 1000).rounded() / 1000) }
            guard s.leader != me, let anchor = s.anchor else { return nil }
            s.leader = me
            logger.notice("sync: this node leads the group \(settings.group)")
            return "\(me) \(anchor.item) \(anchor.at)"
        }
        if let word { client.publish(base + "/schedule", word, retain: true) }
    }

    /// Pings the reference (every second for its first exchanges, then every 2 s); a new
    /// reference starts a new estimate.
    private func ping(_ client: MQTTClient, tick: Int) {
        let up = uptime
        guard up >= 1.2 else { return }  // the others' heartbeats heard first
        let target: (String, Int)? = state.withLock { s in
            let reference = s.members.reference(at: up)
            if reference != s.reference {
                if let old = s.reference {
                    s.previous = old == me ? 0 : s.offset.offset(at: MQTTClient.systemTime()) ?? s.previous
                }
                s.reference = reference
                s.offset.reset()
                s.pending = [:]
                s.exchangesSinceChange = 0
                logger.notice("sync: the group's time comes from \(reference == me ? "this node" : reference)")
            }
            guard reference != me else { return nil }
            if s.exchangesSinceChange >= 8, tick % 8 != 2 { return nil }
            s.nextID += 1
            s.pending = s.pending.filter { _, sent in MQTTClient.systemTime() - sent < 5 }
            return (reference, s.nextID)
        }
        guard let (reference, id) = target else { return }
        let sent = MQTTClient.systemTime()
        state.withLock { $0.pending[id] = sent }
        client.publish(base + "/ping/" + reference, "\(me) \(id) \(sent)", atMostOnce: true)
    }
}
