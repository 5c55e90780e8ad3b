import PropertyBased
import Sync
import Testing
import Wire

@Suite struct ClockScheduleTests {
    @Test func itemsFollowOneAnotherRoundAndRound() throws {
        let s = try #require(ClockSchedule(durations: [10, 5, 2.5], origin: 1000))
        #expect(s.round == 17.5)
        #expect(s.at(1000) == (0, 0))
        #expect(s.at(1012) == (1, 2))
        #expect(s.at(1016) == (2, 1))
        #expect(s.at(1017.5 + 3) == (0, 3))
        // Before the origin: the rounds go back too.
        #expect(s.at(1000 - 1) == (2, 1.5))
        #expect(ClockSchedule(durations: []) == nil)
        #expect(ClockSchedule(durations: [3, 0]) == nil)
        #expect(ClockSchedule(durations: [.infinity]) == nil)
    }

    @Test func theTimeLeftOfTheItemTheScheduleHasPlaying() throws {
        let s = try #require(ClockSchedule(durations: [10, 5, 2.5], origin: 1000))
        #expect(s.remaining(item: 1, at: 1012) == 3)
        #expect(s.remaining(item: 0, at: 1012) == nil)
        #expect(s.remaining(item: 2, at: 1000 - 1) == 1)
        #expect(abs((s.remaining(item: 0, at: 1000 + 17.5 * 2 + 9.5) ?? 0) - 0.5) < 1e-9)
        #expect(s.remaining(item: 3, at: 1000) == nil)
        // One item, round and round: always its own.
        let one = try #require(ClockSchedule(durations: [3]))
        #expect(abs((one.remaining(item: 0, at: 3000.5) ?? 0) - 2.5) < 1e-9)
    }

    @Test func anAnchorLaysEachNodesOwnPlaylistOut() throws {
        // The leader's word: item 1 starts at 1010; a node whose item 0 lasts 10 s starts its
        // round at 1000, one whose lasts 4 s at 1006.
        let anchor = ScheduleAnchor(item: 1, at: 1010)
        let three = try #require(ClockSchedule(durations: [10, 5, 2.5], anchor: anchor))
        #expect(three.at(1010) == (1, 0) && three.at(1000) == (0, 0))
        let two = try #require(ClockSchedule(durations: [4, 5], anchor: anchor))
        #expect(two.at(1010) == (1, 0) && two.at(1006) == (0, 0))
        // A shorter playlist counts round: item 4 of 3 is item 1.
        #expect(ClockSchedule(durations: [10, 5, 2.5], anchor: ScheduleAnchor(item: 4, at: 1010)) == three)
        // What starts next: within the round, and round again at its end.
        let s = try #require(ClockSchedule(durations: [10, 5, 2.5], origin: 1000))
        #expect(s.next(after: 1012) == ScheduleAnchor(item: 2, at: 1015))
        #expect(s.next(after: 1016) == ScheduleAnchor(item: 0, at: 1017.5))
        #expect(s.next(after: 1036) == ScheduleAnchor(item: 1, at: 1045))
        // Every anchor of a schedule gives it back, round after round (a real clock's times too).
        let real = try #require(ClockSchedule(durations: [10.01, 4.966_667, 7.2], anchor: anchor))
        var t = 1_764_230_000.123_456
        for _ in 0..<50 {
            let next = real.next(after: t)
            #expect(ClockSchedule(durations: real.durations, anchor: next) == real, "\(next)")
            t = next.at + 0.1
        }
    }

    @Test func aPositionAndTheTimeItIsScheduledAtAgree() async {
        await propertyCheck(
            count: 500, input: Gen.double(in: 0.04...600).array(of: 1...6), Gen.double(in: 0...2_000_000_000),
            Gen.double(in: -0.49...0.49)
        ) { durations, t, fraction in
            guard let s = ClockSchedule(durations: durations, origin: 1_700_000_000) else { return }
            let (item, position) = s.at(t)
            #expect(durations.indices.contains(item))
            #expect(position >= 0 && position < durations[item] + 1e-6)
            // The scheduled place is on time; the same place shifted is off by the shift.
            #expect(abs(s.error(item: item, position: position, at: t)) < 1e-5)
            let shift = fraction * s.round
            #expect(abs(s.error(item: item, position: position + shift, at: t) - shift) < 1e-5)
        }
    }

    @Test func anItemJustLoopedIsNearItsScheduleNotARoundAway() throws {
        let s = try #require(ClockSchedule(durations: [10]))
        // The schedule has the item 0.02 s into its next run; the node still shows its last frame.
        #expect(abs(s.error(item: 0, position: 9.99, at: 100.02) - -0.03) < 1e-9)
        #expect(abs(s.error(item: 0, position: 0.01, at: 99.99) - 0.02) < 1e-9)
    }
}

@Suite struct ClockOffsetTests {
    @Test func theQuickestExchangesDecide() {
        var o = ClockOffset()
        #expect(o.offset(at: 0) == nil)
        // The reference is 0.2 s ahead; one exchange waited 80 ms one way in the broker.
        o.add(ClockExchange(sent: 10, remoteReceived: 10.201, remoteSent: 10.201, received: 10.002))
        o.add(ClockExchange(sent: 11, remoteReceived: 11.281, remoteSent: 11.281, received: 11.082))
        o.add(ClockExchange(sent: 12, remoteReceived: 12.2015, remoteSent: 12.2016, received: 12.0031))
        let estimate = o.offset(at: 12)!
        #expect(abs(estimate - 0.2) < 0.001)
        o.reset()
        #expect(o.offset(at: 12) == nil)
    }

    @Test func aClockThatRunsFastIsFollowedAlongItsRate() async {
        // True offset: `start` + `ppm` × t; one-way delays 0.5-3 ms, some exchanges queued longer.
        await propertyCheck(
            count: 300, input: Gen.double(in: -1...1), Gen.double(in: -1500...1500),
            Gen.double(in: 0.0005...0.003).array(of: 40...40), Gen.int(in: 0...39).array(of: 0...8)
        ) { start, ppm, delays, queued in
            var o = ClockOffset()
            let rate = ppm / 1_000_000
            for (n, d) in delays.enumerated() {
                let t = 1000 + Double(n) * 2
                let extra = queued.contains(n) ? 0.05 : 0
                let remote = t + d + extra + start + rate * (t + d + extra)
                o.add(ClockExchange(sent: t, remoteReceived: remote, remoteSent: remote, received: t + 2 * d + extra))
            }
            let now = 1000 + 80.0
            let truth = start + rate * now
            // Within a millisecond and a half: the quick exchanges, and the rate through them.
            #expect(abs(o.offset(at: now)! - truth) < 0.0015)
        }
    }
}

@Suite struct GroupMembersTests {
    @Test func theLeastNameHeardLatelyIsTheReference() {
        var g = GroupMembers(me: "wall-b", timeout: 4.5)
        #expect(g.reference(at: 0) == "wall-b")
        g.heard("wall-c", at: 0)
        g.heard("wall-a", at: 1)
        #expect(g.members(at: 2) == ["wall-a", "wall-b", "wall-c"])
        #expect(g.reference(at: 2) == "wall-a")
        // wall-a goes quiet: this node takes over 4.5 s after its last word.
        g.heard("wall-c", at: 5)
        #expect(g.reference(at: 5.4) == "wall-a")
        #expect(g.reference(at: 5.6) == "wall-b")
        g.heard("wall-a", at: 6)
        #expect(g.reference(at: 6) == "wall-a")
        g.left("wall-a")
        #expect(g.reference(at: 6) == "wall-b")
        g.heard("wall-b", at: 7)  // its own heartbeat, echoed by the broker
        #expect(g.members(at: 7) == ["wall-b", "wall-c"])
    }
}

/// A player as the follower sees it: its position runs at its speed times its clock's rate,
/// moves by whole frames, and a seek or a load lands after a while.
private struct SimulatedPlayer {
    var schedule: ClockSchedule
    var item: Int
    var exact: Double
    var speed = 1.0
    var rate: Double
    var seekTakes: Double
    var landing: (at: Double, item: Int, position: Double)?
    let frame = 1.0 / 30

    mutating func run(_ dt: Double, now: Double) {
        if let l = landing, now >= l.at {
            (item, exact, landing) = (l.item, l.position + (now - l.at) * speed * rate, nil)
            return
        }
        guard landing == nil else { return }
        exact += dt * speed * rate
        if exact >= schedule.durations[item] {
            exact -= schedule.durations[item]
            item = (item + 1) % schedule.durations.count
        }
    }

    var sample: (Int?, Double?) {
        landing == nil ? (item, (exact / frame).rounded(.down) * frame) : (nil, nil)
    }

    mutating func apply(_ c: ClockFollower.Correction, now: Double) {
        switch c {
        case .speed(let s): speed = s
        case .seek(let p): landing = (now + seekTakes, item, p)
        case .play(let i, let p): landing = (now + seekTakes * 2, i, p)
        }
    }
}

@Suite struct ClockFollowerTests {
    @Test func aNodeJoinsWithinAFrameAndStaysWithSmallSpeedChanges() async {
        // Any playlist, a node starting anywhere in it, a clock up to 1000 ppm off, seeks of up to 0.3 s.
        await propertyCheck(
            count: 200, input: Gen.double(in: 3...40).array(of: 1...3), Gen.double(in: 0...1),
            Gen.double(in: -1000...1000), Gen.double(in: 0...0.3)
        ) { durations, startAt, ppm, seekTakes in
            guard let schedule = ClockSchedule(durations: durations, origin: 0) else { return }
            var follower = ClockFollower(schedule: schedule)
            let begin = 1_000_000.0 + startAt * schedule.round
            var player = SimulatedPlayer(
                schedule: schedule, item: 0, exact: 0, rate: 1 + ppm / 1_000_000, seekTakes: seekTakes)
            var seeks = 0
            var late: [Double] = []
            var speeds: [Double] = []
            let step = 0.0525
            for n in 0..<2400 {  // 126 s, sampled every 0.21 s (as the player does)
                let now = Double(n) * step
                player.run(step, now: now)
                if n % 4 == 0 {
                    let (item, position) = player.sample
                    let sample = ClockFollower.Sample(
                        item: item, position: position, groupTime: begin + now, frame: player.frame)
                    if let c = follower.follow(sample, at: now) {
                        if case .speed(let s) = c { speeds.append(s) } else { seeks += 1 }
                        player.apply(c, now: now)
                    }
                }
                if now > 20, player.landing == nil {
                    // Frames apart: the frame shown against the frame the schedule has now.
                    let error = schedule.error(item: player.item, position: player.exact, at: begin + now)
                    let shown = (player.exact * 30).rounded(.down)
                    late.append(shown - ((player.exact - error) * 30).rounded(.down))
                }
            }
            // Joined after a load (or two, across an item's end) and at most three seeks, then
            // held by speed alone.
            #expect(seeks <= 5)
            #expect(follower.joined)
            #expect(speeds.allSatisfy { abs($0 - 1) <= 0.01 + 1e-9 })
            // After 20 s the node shows the frame the schedule has, or the one beside it (a
            // position read by whole frames cannot tell better than half a frame either way).
            #expect(late.allSatisfy { abs($0) <= 1 }, "\(late.enumerated().filter { abs($0.1) > 1 }.prefix(5))")
            #expect(Double(late.filter { $0 == 0 }.count) >= 0.4 * Double(late.count))
        }
    }

    @Test func aJoinedNodeFarOffSeeksAgainAndAPausedOneIsLeftAlone() throws {
        let schedule = try #require(ClockSchedule(durations: [60]))
        var f = ClockFollower(schedule: schedule)
        // On time at once: joined, nothing to do.
        #expect(f.follow(.init(item: 0, position: 10, groupTime: 10), at: 0) == nil)
        #expect(f.joined)
        // 20 ms ahead: a little slower.
        for n in 1...8 {
            _ = f.follow(.init(item: 0, position: 10 + Double(n) * 0.2 + 0.02, groupTime: 10 + Double(n) * 0.2), at: 0)
        }
        #expect(f.speed == 0.99)
        // A stall left it 2 s behind: a seek, whatever the join said.
        #expect(f.follow(.init(item: 0, position: 20, groupTime: 22), at: 1) == .seek(22))
        // Paused: no correction.
        #expect(f.follow(.init(item: 0, position: 20, groupTime: 40, paused: true), at: 5) == nil)
        // The group's clock steps by 0.2 s (its first estimate, a new reference): a new join.
        var h = ClockFollower(schedule: schedule)
        #expect(h.follow(.init(item: 0, position: 10, groupTime: 10), at: 0) == nil)
        #expect(h.follow(.init(item: 0, position: 10.21, groupTime: 10.21 + 0.2), at: 0.21) == .seek(10.41))
        // The wrong item: the right one, from its place.
        let two = try #require(ClockSchedule(durations: [10, 10]))
        var g = ClockFollower(schedule: two)
        #expect(g.follow(.init(item: 0, position: 1, groupTime: 15), at: 0) == .play(item: 1, position: 5))
        #expect(ClockFollower.Correction.play(item: 1, position: 5).description == "item 2 from 5.0 s")
    }
}
