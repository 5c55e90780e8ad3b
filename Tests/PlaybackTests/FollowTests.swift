import Playback
import Sync
import Testing
import Wire

/// A wall's node following its group, as the playback core's rules: each sample brings the
/// group's time (the test's `t` plus ``Drive/clock``) and anchor; the core asks for the files'
/// lengths, lays the schedule out, starts each held item at its instant, asks for the next item
/// ahead and corrects.
@Suite struct FollowTests {
    /// Two files of 10 s, held at their first frame, the schedule's first item at group time 1 000 000.
    static func wall(announces: Bool = false, lengthless: Set<String> = [], itemTime: Double = 10) -> Drive {
        var settings = PlayerSettings.folder()
        settings.holdStarts = true
        var d = Drive(settings, files: ["/d/1.mp4": "a", "/d/2.mp4": "b"])
        d.mpv.itemTime = itemTime
        d.anchor = ScheduleAnchor(item: 0, at: 1_000_000)
        d.lengthless = lengthless
        d.send(.follow(announces: announces))
        d.send(.start)
        return d
    }

    @Test func theLengthsAreAskedOnceAndEachHeldItemStartsAtItsInstant() throws {
        var d = Self.wall()
        d.advance(1)
        #expect(d.probed == [["/d/1.mp4", "/d/2.mp4"]])
        // The first item started at once (no schedule yet); the next is asked for its load
        // margin (0.15 s) before the schedule ends the first, and waits, paused, until 10 s.
        d.advance(9.5)
        let asked = try #require(d.timed.last { $0.command == .step(.next) })
        #expect(abs(asked.at - 9.85) < 0.06, "\(asked)")
        let unpaused = try #require(d.timed.last { $0.command == .set("pause", .flag(false)) })
        #expect(unpaused.at > 9.99 && unpaused.at < 10.05, "\(unpaused)")
        let status = try #require(d.core.followStatus)
        #expect(status.problem == nil && abs(status.lastStart ?? 1) < 0.05, "\(status)")
    }

    @Test func aNodeFarFromTheScheduleSeeksToItsPlace() {
        var d = Self.wall()
        // The group is 4 s into the first item; this node's file starts at 0.
        d.clock = 1_000_004
        d.advance(2)
        #expect(
            d.commands.contains {
                if case .command(let words) = $0 {
                    words.first == "seek" && words.last == "absolute+exact"
                } else {
                    false
                }
            }, "\(d.commands)")
        // In its place since (the fake's position moves with a seek).
        #expect(d.core.followStatus?.error.map { abs($0) < 0.05 } == true, "\(String(describing: d.core.followStatus))")
    }

    @Test func aLeaderSaysItsNextItemASecondAhead() {
        var d = Self.wall(announces: true)
        d.advance(9.5)
        #expect(d.announced.contains(ScheduleAnchor(item: 1, at: 1_000_010)), "\(d.announced)")
        var follower = Self.wall()
        follower.advance(9.5)
        #expect(follower.announced.isEmpty)
    }

    @Test func aFileWithoutALengthCannotBeScheduledAndSaysWhy() {
        var d = Self.wall(lengthless: ["/d/2.mp4"])
        d.advance(2)
        #expect(d.core.followStatus?.problem == "/d/2.mp4 has no length mpv can read: the wall cannot schedule it")
    }

    @Test func stoppingPutsTheSpeedBackAndStartsAHeldItemUnlessTheScreenIsOff() {
        var d = Self.wall()
        d.advance(2)
        d.commands = []
        d.send(.follow(announces: nil))
        #expect(d.commands.contains(.set("pause", .flag(false))))
        #expect(d.core.followStatus == nil)
        var off = Self.wall()
        off.advance(2)
        off.send(.pause(true))
        off.commands = []
        off.send(.follow(announces: nil))
        #expect(!off.commands.contains(.set("pause", .flag(false))))
    }

    /// A step on the leader: the item stepped to is the group's from its first frame (said with
    /// the group's time then), and nothing pulls this node back to the old schedule.
    @Test func aStepOnTheLeaderIsTheGroupsFromItsFirstFrame() throws {
        var d = Self.wall(announces: true)
        d.advance(3)
        d.commands = []
        d.send(.step(.next, request: 1))
        d.advance(3)
        let said = try #require(d.announced.first { $0.item == 1 }, "\(d.announced)")
        #expect(abs(said.at - 1_000_003) < 0.01, "\(said)")
        #expect(!d.commands.contains { if case .command(let w) = $0 { w.first == "seek" } else { false } })
        #expect(!d.commands.contains { if case .play = $0 { true } else { false } }, "\(d.commands)")
        #expect(d.core.followStatus?.lastStart.map { abs($0) < 0.05 } == true)
    }

    /// Following a leader with other content: this node's first file lasts 6 s against the
    /// leader's 10 s. It goes on by its own lengths, and when the leader says its next item (item
    /// 1 at 10 s), this node starts its own item 1 then, loaded its load margin ahead and held.
    @Test func aFollowerWithOtherContentStartsTheLeadersNextItemAtItsInstant() throws {
        var d = Self.wall(itemTime: 6)
        d.advance(9)
        let second = try #require(d.core.entries.first { $0.path == "/d/2.mp4" }?.id)
        d.timed = []
        d.anchor = ScheduleAnchor(item: 1, at: 1_000_010)
        d.advance(1.5)
        // Its load margin ahead: the last load's time (this fake loads at once) and 20 ms.
        let asked = try #require(d.timed.first { $0.command == .play(entry: second) }, "\(d.timed)")
        #expect(asked.at > 9.95 && asked.at < 10, "\(asked)")
        let unpaused = try #require(d.timed.last { $0.command == .set("pause", .flag(false)) })
        #expect(unpaused.at > 9.99 && unpaused.at < 10.05, "\(unpaused)")
    }
}
