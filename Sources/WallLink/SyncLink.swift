public import Config
import Glibc
public import Logging
import MQTT
public import OrientationCore
public import Session
import Settings
public import Sync
import Synchronization
public import Wire

/// This screen as a node of a wall's sync group on `[mqtt]`'s broker: the transport between the
/// broker and the group's rules (``GroupCore``, a value). It hands the core what the broker
/// delivers and one timer's ticks, each with the time `now` gives, and carries out what the core
/// says, in order: publish, turn, play a clip, log. Topics, under `PREFIX/sync/GROUP/SENDER/`
/// (``GroupAddress``): `node` (retained), `beat`, `ping/TO` and `pong/TO`, `schedule` (retained),
/// `clip`, `orientation` (retained). With `[sync] key_file` every message is sealed with the
/// group's key (``GroupSeal``) and only sealed, fresh, unseen ones count. A broker that is down
/// leaves the estimate as it was: the wall plays on its own clocks and is whole again when the
/// broker returns.
public final class SyncLink: Sendable {
    public let settings: SyncSettings
    public let mqtt: MQTTSettings
    public let logger: Logger
    private let core: Mutex<GroupCore>
    /// This node's clocks (``GroupClock/system``; a test's own).
    private let now: @Sendable () -> GroupNow
    /// The connection while it runs.
    private let client = Mutex<MQTTClient?>(nil)

    /// The wall's orientation, each with the group time at which every node takes it: this
    /// node's accelerometer's (``share(_:)``) and the others'.
    public let turns: AsyncStream<(orientation: DeviceOrientation, at: Double)>
    private let turnsInput: AsyncStream<(orientation: DeviceOrientation, at: Double)>.Continuation
    /// The clip scenes asked of the group, each with the group time every node starts it at.
    public let clips: AsyncStream<(name: String, at: Double)>
    private let clipsInput: AsyncStream<(name: String, at: Double)>.Continuation
    /// This screen's place in the group, when it changes (a follower of a leader: its name).
    public let roles: AsyncStream<WallRole>
    private let rolesInput: AsyncStream<WallRole>.Continuation

    /// `key`: the group's key (`[sync] key_file`'s bytes), or `nil` for unsealed messages.
    public init(
        settings: SyncSettings, mqtt: MQTTSettings, key: GroupSeal?, logger: Logger,
        now: @escaping @Sendable () -> GroupNow = GroupClock.system
    ) {
        self.settings = settings
        self.mqtt = mqtt
        self.logger = logger
        self.now = now
        let setup = GroupCore.Setup(
            base: "\(mqtt.prefix)/sync/\(settings.group)", group: settings.group, me: mqtt.device,
            leader: settings.follow == .leader, seal: key, mark: "\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
            seed: UInt64.random(in: 0...UInt64.max))
        core = Mutex(GroupCore(setup, at: now()))
        (turns, turnsInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(8))
        (clips, clipsInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(8))
        (roles, rolesInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        rolesInput.yield(.member)
    }

    public var me: String { mqtt.device }

    /// The wall's link for `configuration`; `nil` without `[sync] group` or `[mqtt] url`. A
    /// `key_file` that gives no key stops the start: a screen that cannot check its group's
    /// messages cannot take its place in it.
    public static func make(_ configuration: UprightConfiguration, logger: Logger) throws -> SyncLink? {
        let sync = configuration.sync
        guard !sync.group.isEmpty, !configuration.mqtt.url.isEmpty else { return nil }
        var seal: GroupSeal?
        if !sync.keyFile.isEmpty {
            switch SyncKey.read(file: sync.keyFile) {
            case .success(let key): seal = GroupSeal(key: key)
            case .failure(let problem): throw WallLinkError(description: "[sync] key_file \(sync.keyFile) \(problem)")
            }
        }
        return SyncLink(settings: sync, mqtt: configuration.mqtt, key: seal, logger: logger)
    }

    /// `input` handed to the core, its effects carried out at once and in order (under the
    /// core's lock: the broker's thread, the timer and the session's calls never interleave).
    @discardableResult
    private func send(_ input: GroupCore.Input) -> [GroupCore.Effect] {
        let at = now()
        return core.withLock { core in
            let effects = core.handle(input, at: at)
            let client = self.client.withLock { $0 }
            for effect in effects {
                switch effect {
                case .subscribe(let pattern, let once):
                    if once { client?.subscribeAtMostOnce(pattern) } else { client?.subscribe(pattern) }
                case .publish(let topic, let payload, let retain, let once):
                    client?.publish(topic, payload, retain: retain, atMostOnce: once)
                case .turn(let o, let at): turnsInput.yield((o, at))
                case .clip(let name, let at): clipsInput.yield((name, at))
                case .ledBy(let leader): rolesInput.yield(leader.map { .follows($0) } ?? .member)
                case .log(.notice, let line): logger.notice("\(line)")
                case .log(.warning, let line): logger.warning("\(line)")
                case .log(.error, let line): logger.error("\(line)")
                }
            }
            return effects
        }
    }

    /// A clip scene asked of this node: every node of the group plays it from one instant, this
    /// one too (on its own when the broker is away). Returns that instant (group time).
    @discardableResult
    public func share(clip name: String) -> Double {
        for case .clip(_, let at) in send(.shareClip(name)) { return at }
        return 0
    }

    /// This node's accelerometer read `orientation`: the whole wall takes it, this node too, at
    /// one instant a little ahead (this node on its own when the broker is away).
    public func share(_ orientation: DeviceOrientation) { send(.shareOrientation(orientation)) }

    /// The leader's word: `anchor.item` starts at `anchor.at` (its next item, ahead; the item a
    /// step moved to, now). Published when this node leads and it is news.
    public func announce(_ anchor: ScheduleAnchor) { send(.announce(anchor)) }

    /// The group's time now (``GroupCore/groupTime(at:)``).
    public func groupTime() -> Double? {
        let at = now()
        return core.withLock { $0.groupTime(at: at) }
    }

    /// Which item starts when, on the group's clock (``GroupCore/anchor``).
    public func anchor() -> ScheduleAnchor? { core.withLock { $0.anchor } }

    /// This node leads its group (`follow = "leader"` and the least name heard).
    public var leads: Bool { core.withLock { $0.leads } }

    /// Who leads, for a follower's refusal; `nil` when this node leads or follows the clock.
    public var ledBy: String? { core.withLock { $0.ledBy } }

    /// The group as `ctl status` shows it (the player adds how it follows).
    public func report() -> SyncReport {
        let at = now()
        return core.withLock { g in
            var r = SyncReport(group: settings.group, follow: settings.follow.rawValue, device: me)
            r.members = g.memberNames(at: at)
            r.reference = g.reference
            r.broker =
                switch g.broker {
                case "connecting": "connecting to \(mqtt.url)"
                case "connected": "connected to \(mqtt.url)"
                case let why: "\(mqtt.url): \(why); trying again"
                }
            if g.reference == me {
                r.offsetMS = 0
            } else if let o = g.offset.offset(at: at.wall) ?? g.previous {
                r.offsetMS = Self.milliseconds(-o)
            }
            r.roundTripMS = g.offset.quickest.map(Self.milliseconds)
            if settings.follow == .leader { r.leader = g.ledBy ?? g.leader }
            r.orientation = g.orientation.map {
                "\($0.device.name) (\($0.from == me ? "this node's sensor" : $0.from))"
            }
            r.problem = g.problem
            r.sealed = g.setup.seal != nil
            r.rejected = g.rejected
            r.lastRejected = g.lastRejection
            return r
        }
    }

    public static func milliseconds(_ seconds: Double) -> Double { (seconds * 10_000).rounded() / 10 }

    /// Runs until cancelled: the connection and the timer.
    public func run() async {
        let endpoint: MQTTEndpoint
        switch mqtt.endpoint(password: mqtt.readPassword()) {
        case .success(let e): endpoint = e
        case .failure(let e):
            logger.error("sync: \(e); the wall's group is off")
            return
        }
        let sealed = core.withLock { $0.setup.seal != nil }
        let presence = GroupAddress(from: me, kind: .node).topic(base: core.withLock { $0.setup.base })
        let client: MQTTClient
        do {
            // The broker's last will cannot be sealed when it is published: with a key, a node
            // that went away without a word is judged by its silent heartbeats instead.
            client = try MQTTClient(
                id: "upright-\(me)-sync-\(getpid())", endpoint: endpoint, will: sealed ? nil : (presence, ""),
                maxPayload: GroupWire.maxPayload * 8)
        } catch {
            logger.error("sync: \(error); the wall's group is off")
            return
        }
        logger.info(
            "sync: group \(settings.group) as \(me) through \(mqtt.url)\(sealed ? ", sealed with its key" : "")")
        if !sealed, let problem = core.withLock({ $0.problem }) { logger.warning("sync: \(problem)") }
        self.client.withLock { $0 = client }
        let timer = Task { [self] in
            // The one timer: each tick at the core's deadline.
            while !Task.isCancelled {
                let wait = core.withLock { $0.nextDeadline } - now().mono
                if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                send(.tick)
            }
        }
        defer {
            timer.cancel()
            send(.leaving)
            self.client.withLock { $0 = nil }
            client.close()
        }
        var said: String?
        for await event in client.events {
            if Task.isCancelled { break }
            switch event {
            case .connected:
                logger.notice("sync: connected to \(mqtt.url)")
                said = nil
                send(.connected)
            case .disconnected(let why):
                if why != said {
                    logger.warning("sync: \(mqtt.url): \(why); the wall plays on its own clocks meanwhile")
                }
                said = why
                send(.disconnected(why))
            case .message(let topic, let payload, let at, let retained):
                send(.message(topic: topic, payload: payload, receivedAt: at, retained: retained))
            }
        }
    }
}

/// Why a wall's link cannot be made, worded for the log.
public struct WallLinkError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
