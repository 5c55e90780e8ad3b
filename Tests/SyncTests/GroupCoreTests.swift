import OrientationCore
import PropertyBased
import Sync
import Testing
import Wire

/// A broker and the nodes of one group, as values: every node's timer ticks on time, each message
/// goes to every subscriber after `delay`, retained ones are kept; a rogue on the broker can read
/// everything and publish anything. Time is the test's (`t`), each node's system clock `t` plus
/// its skew.
struct GroupNet {
    static let base = "upright/sync/lobby-wall"
    static let key = [UInt8](repeating: 7, count: 32)
    var nodes: [String: GroupCore] = [:]
    var skew: [String: Double] = [:]
    var t = 1_000_000.0
    var delay = 0.002
    /// Messages in flight: when each arrives, its topic, payload and whether it is retained.
    var inflight: [(at: Double, topic: String, payload: String)] = []
    var retained: [String: String] = [:]
    /// Everything published, in order (what a rogue captures).
    var captured: [(topic: String, payload: String, retain: Bool)] = []
    /// What each node was told to do, besides publishing.
    var turns: [String: [(DeviceOrientation, Double)]] = [:]
    var clips: [String: [(String, Double)]] = [:]
    var logs: [String: [String]] = [:]

    func now(_ name: String) -> GroupNow { GroupNow(wall: t + (skew[name] ?? 0), mono: t - 999_000) }

    mutating func add(_ name: String, leader: Bool = false, key: [UInt8]? = GroupNet.key, skew: Double = 0) {
        self.skew[name] = skew
        let setup = GroupCore.Setup(
            base: Self.base, group: "lobby-wall", me: name, leader: leader, seal: key.flatMap(GroupSeal.init(key:)),
            mark: "mark-\(name)-\(t)", seed: UInt64(truncatingIfNeeded: name.hashValue))
        nodes[name] = GroupCore(setup, at: now(name))
        perform(name, nodes[name]!.handle(.connected, at: now(name)))
        for (topic, payload) in retained.sorted(by: { $0.key < $1.key }) {
            deliver(topic, payload, to: name, retained: true)
        }
    }

    mutating func remove(_ name: String) { nodes[name] = nil }

    mutating func input(_ name: String, _ input: GroupCore.Input) {
        guard var core = nodes[name] else { return }
        let effects = core.handle(input, at: now(name))
        nodes[name] = core
        perform(name, effects)
    }

    mutating func perform(_ name: String, _ effects: [GroupCore.Effect]) {
        for e in effects {
            switch e {
            case .subscribe: break
            case .publish(let topic, let payload, let retain, _): publish(topic, payload, retain: retain)
            case .turn(let o, let at): turns[name, default: []].append((o, at))
            case .clip(let c, let at): clips[name, default: []].append((c, at))
            case .log(_, let line): logs[name, default: []].append(line)
            case .ledBy: break
            }
        }
    }

    /// What anyone on the broker may do.
    mutating func publish(_ topic: String, _ payload: String, retain: Bool = false) {
        captured.append((topic, payload, retain))
        if retain { retained[topic] = payload.isEmpty ? nil : payload }
        inflight.append((t + delay, topic, payload))
    }

    mutating func deliver(_ topic: String, _ payload: String, to name: String, retained: Bool = false) {
        input(
            name, .message(topic: topic, payload: Array(payload.utf8), receivedAt: now(name).wall, retained: retained))
    }

    /// Runs for `seconds`, in steps of a millisecond.
    mutating func run(_ seconds: Double) {
        let end = t + seconds
        while t < end {
            t += 0.001
            let due = inflight.filter { $0.at <= t }
            inflight.removeAll { $0.at <= t }
            for m in due { for name in nodes.keys.sorted() { deliver(m.topic, m.payload, to: name) } }
            for name in nodes.keys.sorted() where now(name).mono >= nodes[name]!.nextDeadline { input(name, .tick) }
        }
    }

    func members(_ name: String) -> [String] { nodes[name]!.memberNames(at: now(name)) }
    func groupTime(_ name: String) -> Double? { nodes[name]!.groupTime(at: now(name)) }
}

@Suite struct GroupCoreTests {
    @Test func theLeastNameHeardIsTheReferenceAndTheNextTakesOverWhenItGoesQuiet() {
        var net = GroupNet()
        for name in ["wall-b", "wall-a", "wall-c"] { net.add(name) }
        net.run(3)
        for name in ["wall-a", "wall-b", "wall-c"] {
            #expect(net.members(name) == ["wall-a", "wall-b", "wall-c"])
            #expect(net.nodes[name]!.reference == "wall-a")
        }
        #expect(net.nodes["wall-b"]!.rejected == 0 && net.nodes["wall-b"]!.problem == nil)
        // The reference ends without a word (its process killed): the others go on from wall-b
        // once it has been quiet for 4.5 s, keeping the old estimate until the new one answers.
        net.remove("wall-a")
        net.run(4)
        #expect(net.nodes["wall-c"]!.reference == "wall-a")
        net.run(2)
        #expect(net.nodes["wall-c"]!.reference == "wall-b")
        #expect(net.members("wall-c") == ["wall-b", "wall-c"])
        // Its goodbye, sealed, takes a node out at once.
        net.input("wall-c", .leaving)
        net.run(0.1)
        #expect(net.members("wall-b") == ["wall-b"])
    }

    /// A member's retained words the broker sends at a subscription, aged out (a screen started
    /// later) or taken already (a connection again), change nothing and are no one's attack.
    @Test func aMembersRetainedWordsOfBeforeAreNotCountedAsRejected() {
        var net = GroupNet()
        net.add("wall-a", leader: true)
        net.run(3)
        net.input("wall-a", .shareOrientation(.landscapeLeft))
        net.input("wall-a", .leaving)
        net.remove("wall-a")
        net.run(40)
        net.add("wall-b", leader: true)
        net.run(1)
        #expect(net.nodes["wall-b"]!.rejected == 0, "\(net.logs["wall-b"] ?? [])")
        #expect(net.turns["wall-b"] == nil)
        // Connected again: the retained words come again, current ones too.
        net.run(10)
        net.input("wall-b", .connected)
        for (topic, payload) in net.retained { net.deliver(topic, payload, to: "wall-b", retained: true) }
        net.run(1)
        #expect(net.nodes["wall-b"]!.rejected == 0, "\(net.logs["wall-b"] ?? [])")
        // The others' words sent live again (not kept by the broker) are counted: too old, or replays.
        for (topic, payload) in net.retained { net.deliver(topic, payload, to: "wall-b") }
        #expect(net.nodes["wall-b"]!.rejected == net.retained.keys.filter { !$0.contains("/wall-b/") }.count)
    }

    @Test func aNodeWhoseClockIsAheadTakesTheGroupsTime() throws {
        var net = GroupNet()
        net.add("wall-a")
        net.add("wall-b", skew: 0.2)
        net.run(12)
        let b = try #require(net.groupTime("wall-b"))
        #expect(abs(b - net.now("wall-a").wall) < 0.001, "\(b - net.now("wall-a").wall)")
        #expect(net.groupTime("wall-a") == net.now("wall-a").wall)
        let quickest = try #require(net.nodes["wall-b"]!.offset.quickest)
        #expect(abs(quickest - 0.004) < 0.0005)
    }

    @Test func aLeaderIsElectedItsScheduleFollowedAndKeptByTheNext() throws {
        var net = GroupNet()
        for name in ["wall-a", "wall-b", "wall-c"] { net.add(name, leader: true) }
        net.run(3)
        let a = net.nodes["wall-a"]!
        #expect(a.leads && a.leader == "wall-a")
        let anchor = try #require(a.anchor)
        #expect(net.nodes["wall-b"]!.anchor == anchor && net.nodes["wall-b"]!.ledBy == "wall-a")
        // A step on the leader: its word, the others' schedule.
        let step = ScheduleAnchor(item: 1, at: net.t + 0.5)
        net.input("wall-a", .announce(step))
        net.run(0.1)
        #expect(net.nodes["wall-c"]!.anchor == step)
        // A follower's word is no schedule (it does not lead).
        net.input("wall-b", .announce(ScheduleAnchor(item: 0, at: 5)))
        net.run(0.1)
        #expect(net.nodes["wall-c"]!.anchor == step)
        // The leader gone: the next least name leads within 5 s and keeps the group's schedule.
        net.remove("wall-a")
        net.run(5)
        let b = net.nodes["wall-b"]!
        #expect(b.leads && b.anchor == step && net.nodes["wall-c"]!.ledBy == "wall-b")
        // A newcomer with the retained schedules of both takes the leader's.
        net.add("wall-d", leader: true)
        net.run(2)
        #expect(net.nodes["wall-d"]!.anchor == step && net.nodes["wall-d"]!.ledBy == "wall-b")
    }

    @Test func aClipAndAnOrientationAreTakenByEveryNodeAtOneInstant() throws {
        var net = GroupNet()
        net.add("wall-a")
        net.add("wall-b", skew: -0.3)
        net.run(8)
        net.input("wall-b", .shareClip("promo"))
        net.input("wall-b", .shareOrientation(.landscapeLeft))
        net.run(0.1)
        let clipA = try #require(net.clips["wall-a"]?.first), clipB = try #require(net.clips["wall-b"]?.first)
        #expect(clipA.0 == "promo" && clipA.1 == clipB.1)
        #expect(abs(clipB.1 - (net.now("wall-a").wall + 0.5)) < 0.11)
        let turnA = try #require(net.turns["wall-a"]?.first), turnB = try #require(net.turns["wall-b"]?.first)
        #expect(turnA.0 == .landscapeLeft && turnA.1 == turnB.1)
        // Said again while it stands (a screen that starts later takes it), turning nothing twice.
        net.run(12)
        #expect(net.turns["wall-a"]?.count == 1)
        net.add("wall-c")
        net.run(0.1)
        #expect(net.turns["wall-c"]?.first?.0 == .landscapeLeft)
    }

    @Test func withoutAKeyTheGroupWorksAndSaysAnyoneCanMoveIt() {
        var net = GroupNet()
        net.add("wall-a", key: nil)
        net.add("wall-b", key: nil)
        net.run(3)
        #expect(net.nodes["wall-b"]!.reference == "wall-a")
        #expect(net.nodes["wall-b"]!.problem == "[sync] has no key_file: anyone on the broker can move the wall")
        // A pong's sender is its topic, and it answers only a ping of this node's (ids cannot be guessed).
        net.publish(GroupNet.base + "/wall-a/pong/wall-b", "1 \(net.t) \(net.t + 3600) \(net.t + 3600)")
        net.run(0.1)
        #expect(net.nodes["wall-b"]!.rejected == 1 && abs(net.groupTime("wall-b")! - net.t) < 0.01)
        // A sealed message to a node without the key: it says why it ignores it.
        net.add("wall-k")
        net.run(1)
        #expect(net.nodes["wall-a"]!.lastRejection?.contains("this node has no key_file") == true)
    }

    /// Without a key, a flood of schedules under made-up names cannot crowd the leader's out.
    @Test func aFloodOfSchedulesUnderOtherNamesLeavesRoomForTheLeaders() {
        var net = GroupNet()
        net.add("wall-b", leader: true, key: nil)
        for n in 0..<40 { net.publish(GroupNet.base + "/x\(n)/schedule", "0 5", retain: true) }
        net.run(0.1)
        net.add("wall-a", leader: true, key: nil)
        net.run(4)
        #expect(net.nodes["wall-b"]!.ledBy == "wall-a")
        #expect(net.nodes["wall-b"]!.anchor == net.nodes["wall-a"]!.anchor && net.nodes["wall-a"]!.anchor != nil)
    }

    /// What a rogue on the broker without the key can do to a keyed wall: nothing.
    @Test func aRogueWithoutTheKeyChangesNothing() throws {
        var net = GroupNet()
        for name in ["wall-a", "wall-b"] { net.add(name, leader: true) }
        net.run(5)
        net.input("wall-a", .shareOrientation(.landscapeRight))
        net.input("wall-a", .shareClip("promo"))
        net.run(10)
        let anchor = net.nodes["wall-b"]!.anchor
        let before = (turns: net.turns["wall-b"]?.count, clips: net.clips["wall-b"]?.count)
        let capture = net.captured
        #expect(capture.count > 30)
        func unchanged(_ net: GroupNet, _ what: String) {
            let b = net.nodes["wall-b"]!
            #expect(b.reference == "wall-a" && b.anchor == anchor && b.ledBy == "wall-a", "\(what)")
            #expect(net.members("wall-b") == ["wall-a", "wall-b"], "\(what)")
            #expect(abs(net.groupTime("wall-b")! - net.t) < 0.001, "\(what)")
            #expect(net.turns["wall-b"]?.count == before.turns && net.clips["wall-b"]?.count == before.clips, "\(what)")
        }
        // Replays at once: seen before.
        for m in capture { net.publish(m.topic, m.payload, retain: m.retain) }
        net.run(1)
        unchanged(net, "replayed")
        #expect(net.nodes["wall-b"]!.rejected > 20)
        #expect(net.logs["wall-b"]?.contains { $0.contains("seen before") } == true)
        // Forged: the sender's name in the topic replaced (by `!`, `0`), the payload kept, retained too.
        for m in capture {
            for name in ["!", "0"] {
                net.publish(
                    m.topic.replacingOccurrences(of: "/wall-a/", with: "/\(name)/"), m.payload, retain: m.retain)
                net.publish(
                    m.topic.replacingOccurrences(of: "/wall-b/", with: "/\(name)/"), m.payload, retain: m.retain)
            }
        }
        net.run(1)
        unchanged(net, "forged")
        // Garbage and empty retained payloads on every topic seen.
        for topic in Set(capture.map(\.topic)) {
            net.publish(topic, "", retain: true)
            net.publish(topic, "S1 1 zz \(topic)")
            net.publish(topic, String(repeating: "x", count: 10_000))
        }
        net.run(1)
        unchanged(net, "garbage")
        // A member without the key: beats as `!` and `0`, answers every ping with a forged pong.
        for _ in 0..<60 {
            for name in ["!", "0"] { net.publish(GroupNet.base + "/\(name)/beat", "rogue") }
            for m in net.captured.suffix(20) where m.topic.contains("/ping/") {
                let words = m.payload.split(separator: " ")
                if words.count >= 5 {
                    net.publish(
                        m.topic.replacingOccurrences(of: "/ping/", with: "/pong/"),
                        "\(words[3]) \(words[4]) \(net.t + 3600) \(net.t + 3600)")
                }
            }
            net.run(1)
        }
        unchanged(net, "a rogue member")
        // Replays 30 s later, retained too: too old.
        for m in capture { net.publish(m.topic, m.payload, retain: m.retain) }
        net.run(1)
        unchanged(net, "replayed 30 s later")
        #expect(net.logs["wall-b"]?.contains { $0.contains("too old") } == true)
        // A screen started now, with the rogue's retained junk on the broker: in step at once,
        // obeying none of it: the members' standing words (which the rogue's empty retained
        // payloads took off the broker) come again within 5 s.
        net.add("wall-c", leader: true)
        net.run(5.5)
        let c = net.nodes["wall-c"]!
        #expect(c.reference == "wall-a" && c.anchor == anchor && abs(net.groupTime("wall-c")! - net.t) < 0.001)
        #expect(net.turns["wall-c"]?.map(\.0) == [.landscapeRight] && net.clips["wall-c"] == nil)
        #expect(net.members("wall-c") == ["wall-a", "wall-b", "wall-c"])
    }

    @Test func aNodesOwnBeatFromItsPreviousRunIsNoTwinButAnotherProcessIs() {
        var net = GroupNet()
        net.add("wall-a")
        net.run(2)
        let old = net.captured.last { $0.topic.hasSuffix("/wall-a/beat") }!
        // Restarted: its previous run's beat comes back (a replay) and is not another node's.
        net.remove("wall-a")
        net.t += 1
        net.add("wall-a")
        net.publish(old.topic, old.payload)
        net.run(0.1)
        #expect(!net.nodes["wall-a"]!.sameName)
        // A second process under the name, now: told.
        net.add("wall-twin")
        var twin = net.nodes["wall-twin"]!
        _ = twin
        twin = GroupCore(
            GroupCore.Setup(
                base: GroupNet.base, group: "lobby-wall", me: "wall-a", leader: false,
                seal: GroupSeal(key: GroupNet.key), mark: "other", seed: 1), at: net.now("wall-a"))
        net.nodes["wall-twin"] = twin
        net.run(1.5)
        #expect(net.nodes["wall-a"]!.sameName)
        #expect(net.nodes["wall-a"]!.problem?.contains("give each screen its own [mqtt] device") == true)
    }

    @Test func aSealOpensOnlyForItsTopicAndKey() throws {
        let seal = try #require(GroupSeal(key: GroupNet.key))
        let other = try #require(GroupSeal(key: [UInt8](repeating: 8, count: 32)))
        #expect(GroupSeal(key: [UInt8](repeating: 1, count: 31)) == nil)
        let topic = GroupNet.base + "/wall-a/beat"
        let sealed = seal.seal("mark", topic: topic, at: 12.5)
        let opened = try seal.open(Substring(sealed), topic: topic).get()
        #expect(opened.body == "mark" && opened.time == 12.5)
        #expect(throws: GroupRejection.unsigned) { try seal.open(Substring(sealed), topic: topic + "x").get() }
        #expect(throws: GroupRejection.unsigned) { try other.open(Substring(sealed), topic: topic).get() }
        #expect(throws: GroupRejection.unsigned) {
            try seal.open(Substring(sealed.replacingOccurrences(of: "12.5", with: "13.5")), topic: topic).get()
        }
        // An empty body (a goodbye) seals too.
        #expect(try seal.open(Substring(seal.seal("", topic: topic, at: 1)), topic: topic).get().body == "")
    }

    @Test func everyWordReadsBackAndGarbageIsAnError() async {
        let words: [(GroupAddress.Kind, GroupWord)] = [
            (.node, .presence("leader")), (.node, .presence(nil)), (.beat, .beat(mark: "12-34")),
            (.ping, .ping(id: .max, sent: 1.25)), (.pong, .pong(id: 3, sent: 1, received: 2.5, answered: 2.75)),
            (.schedule, .schedule(ScheduleAnchor(item: 2, at: 1_700_000_000.123))),
            (.clip, .clip(name: "spring promo", at: 5)), (.orientation, .orientation(.faceUp, at: 9)),
        ]
        for (kind, word) in words {
            #expect(GroupWire.word(kind, Substring(GroupWire.text(word))) == .success(word))
        }
        #expect(GroupAddress(topic: GroupNet.base + "/wall-a/pong/wall-b", base: GroupNet.base)?.to == "wall-b")
        for bad in ["/wall-a/pong", "/wall-a/beat/x", "//beat", "/wall-a/vote", "x/wall-a/beat"] {
            #expect(GroupAddress(topic: GroupNet.base + bad, base: GroupNet.base) == nil, "\(bad)")
        }
        // Any text ends in a word or an error.
        await propertyCheck(input: Gen.element(of: Array("0123456789 .-eInfa")).compactMap { $0 }.string(of: 0...24)) {
            s in
            for kind in GroupAddress.Kind.allCases { _ = GroupWire.word(kind, Substring(s)) }
        }
        #expect(GroupWire.word(.ping, "1 nan") == .failure(.malformed))
        #expect(GroupWire.word(.schedule, "-1 5") == .failure(.malformed))
    }
}
