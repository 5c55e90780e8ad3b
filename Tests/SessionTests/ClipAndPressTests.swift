import OrientationCore
import PropertyBased
import Session
import Testing
import Wire

/// Clips started by a button, taps during a rotation, and one press that arrives two ways.
@Suite("Session core: clips and presses")
struct ClipAndPressTests {
    /// A landscape kiosk (the inline scene allows landscape-right only) with a portrait clip.
    static func kiosk(presses: ClipPresses = .ignore) -> PolicyConfiguration {
        var p = PolicyConfiguration(
            appSupported: .all, launch: .landscapeRight,
            scenes: PolicyConfiguration.standardScenes + [
                Scene(Scene.inline, supported: [.landscapeRight]),
                Scene("promo", supported: .portrait, clip: "/srv/promo.mp4"),
                Scene("hello", supported: [.landscapeRight], clip: "/srv/hello.mp4"),
            ])
        p.clipPresses = presses
        return p
    }

    static func clips(_ effects: [SessionEffect]) -> [String] {
        effects.compactMap { if case .player(.playClip(let f)) = $0 { f } else { nil } }
    }

    @Test func aClipPlaysInItsOwnOrientationAndTheLoopComesBackInItsOwn() throws {
        var run = try Run(Self.kiosk())
        run.settle()
        #expect(run.core.policy.interface == .landscapeRight)
        let out = run.at(1, .command(.play("promo"), from: .button))
        #expect(Self.clips(out) == ["/srv/promo.mp4"])
        let turn = try #require(out.decisions.first)
        #expect(turn.kind == .rotate && turn.interface == .portrait && turn.cause == "play" && turn.scene == "promo")
        // The clip fills the screen; the output turns (interface strategy) before the clip is asked for.
        #expect(out.contains(.player(.apply(.portrait, .interface, .fullscreen))))
        #expect(out.firstIndex(of: .turnOutput(.portrait))! < out.firstIndex(of: .player(.playClip("/srv/promo.mp4")))!)
        #expect(run.core.status.clip == "promo")
        run.settle()
        let back = run.at(5, .clipEnded)
        let d = try #require(back.decisions.first)
        #expect(d.interface == .landscapeRight && d.cause == "clip-ended" && d.scene == Scene.inline)
        #expect(run.core.status.scenes == [Scene.inline] && run.core.status.clip == nil)
    }

    @Test func pressesDuringAClipAreIgnoredOrQueuedAsConfigured() throws {
        var ignoring = try Run(Self.kiosk())
        ignoring.at(1, .command(.play("promo"), from: .button))
        let ignored = ignoring.at(0.5, .command(.play("hello"), from: .button, request: 7))
        #expect(Self.clips(ignored).isEmpty && ignored.replies.first?.ok == false)
        #expect(ignored.contains(.status("play hello: ignored, the clip 'promo' plays (clip_presses = \"ignore\")")))
        ignoring.settle()
        #expect(Self.clips(ignoring.at(3, .clipEnded)).isEmpty)

        var queueing = try Run(Self.kiosk(presses: .queue))
        queueing.at(1, .command(.play("promo"), from: .button))
        let queued = queueing.at(0.5, .command(.play("hello"), from: .button, request: 7))
        #expect(Self.clips(queued).isEmpty && queued.replies.first?.queued == true)
        #expect(queueing.core.status.clipsQueued == ["hello"])
        queueing.settle()
        let next = queueing.at(3, .clipEnded)
        #expect(Self.clips(next) == ["/srv/hello.mp4"])
        #expect(queueing.core.status.clip == "hello" && queueing.core.status.clipsQueued.isEmpty)
        queueing.settle()
        queueing.at(3, .clipEnded)
        #expect(queueing.core.status.scenes == [Scene.inline] && queueing.core.policy.interface == .landscapeRight)
    }

    @Test func aSceneWithoutAClipIsRefusedWithTheClipsThereAre() throws {
        var run = try Run(Self.kiosk())
        let out = run.at(1, .command(.play("fullscreen"), from: .control, request: 1))
        #expect(Self.clips(out).isEmpty)
        #expect(out.replies.first?.error == "no clip scene named 'fullscreen'; the configuration has: hello, promo")
        #expect(run.core.status.scenes == [Scene.inline])
    }

    @Test func theLockAndScenesEnteredDuringTheClipFollowTheRules() throws {
        // Full screen entered during the clip goes with the clip's scene when it ends.
        var run = try Run(Self.kiosk())
        run.at(1, .command(.play("promo"), from: .button))
        run.settle()
        run.at(1, .command(.fullscreen, from: .hotkey))
        run.settle()
        #expect(run.core.status.scenes == [Scene.inline, "promo", Scene.fullscreen])
        run.at(1, .clipEnded)
        run.settle()
        #expect(run.core.status.scenes == [Scene.inline] && run.core.policy.interface == .landscapeRight)
        // A clip ending that was never started changes nothing.
        #expect(run.at(1, .clipEnded).isEmpty)
    }

    @Test func aTapDuringARotationIsDroppedAndAKeyIsQueued() throws {
        var run = try Run()
        run.settle()
        _ = run.command(.fullscreen)  // a rotation starts
        #expect(run.core.policy.transition != nil)
        let tap = run.at(0.05, .command(.fullscreen, from: .touch))
        #expect(tap == [.status("fullscreen (a tap) is dropped: input is suspended while the interface turns")])
        let key = run.at(0.01, .command(.fullscreen, from: .button))
        #expect(run.core.status.queued == ["fullscreen"], "\(key)")
        run.settle()
        // Once settled a tap counts.
        #expect(!run.at(1, .command(.fullscreen, from: .touch)).decisions.isEmpty)
    }

    @Test func onePressArrivingBothWaysCountsOnce() async {
        // Any gap: within the echo window the second way is dropped, after it both count; the
        // same way twice always counts (a person pressing twice).
        await propertyCheck(input: Gen.double(in: 0...4), Gen.bool) { gap, sameWay in
            var run = try! Run()
            run.settle()
            run.at(1, .command(.toggleLock, from: .button))
            let second = run.at(gap, .command(.toggleLock, from: sameWay ? .button : .hotkey))
            let dropped =
                second.count == 1
                && { if case .status(let s) = second[0] { s.contains("same press") } else { false } }()
            #expect(dropped == (!sameWay && gap < run.core.pressEcho), "gap \(gap), same way \(sameWay): \(second)")
        }
    }

    /// Presses at any gaps, each arriving from the device at once and through mpv's window up to
    /// 2.5 s later (a window busy turning on a slow machine): every press counts once, however the
    /// two ways interleave.
    @Test func quickPressesArrivingBothWaysEachCountOnce() async {
        await propertyCheck(input: Gen.double(in: 0...1.5).array(of: 1...6), Gen.double(in: 0...2.5).array(of: 6...6)) {
            gaps, lags in
            var run = try! Run()
            run.settle()
            var arrivals: [(at: Double, origin: Origin)] = []
            var t = 1.0
            for (gap, lag) in zip(gaps, lags) {
                t += gap
                arrivals += [(t, .button), (t + lag, .hotkey)]
            }
            var counted = 0
            for a in arrivals.sorted(by: { $0.at < $1.at }) {
                let out = run.at(a.at - run.t, .command(.toggleLock, from: a.origin))
                if !out.contains(where: { if case .status(let s) = $0 { s.contains("same press") } else { false } }) {
                    counted += 1
                }
            }
            #expect(counted == gaps.count, "gaps \(gaps), lags \(lags)")
        }
    }
}

@Suite("Session core: fitting the content")
struct FitContentCoreTests {
    @Test(arguments: [
        (ContentShape.portrait, InterfaceOrientation.portrait), (.landscape, .landscapeRight), (.square, .portrait),
        (.unknown, .portrait),
    ])
    func theSceneNarrowsToTheItemsShape(shape: ContentShape, shown: InterfaceOrientation) throws {
        var inline = Scene(Scene.inline, supported: .allButUpsideDown, preferred: .landscapeRight)
        inline.fitContent = true
        var run = try Run(PolicyConfiguration(scenes: [inline]))
        run.settle()
        run.at(1, SessionInput.content(shape))
        run.settle()
        #expect(run.core.policy.interface == shown)
        // A scene without fit_content ignores the shape.
        var plain = try Run(PolicyConfiguration(scenes: [Scene(Scene.inline, supported: .allButUpsideDown)]))
        plain.at(1, SessionInput.content(shape))
        #expect(plain.core.policy.interface == .portrait)
    }

    @Test func shapesFollowTheRotationTag() {
        #expect(ContentShape(width: 1920, height: 1080) == .landscape)
        #expect(ContentShape(width: 1920, height: 1080, rotate: 90) == .portrait)
        #expect(ContentShape(width: 720, height: 1280, rotate: 270) == .landscape)
        #expect(ContentShape(width: 500, height: 500) == .square && ContentShape(width: 0, height: 5) == .unknown)
    }
}

@Suite("Session core: the screen's power plan")
struct PowerPlanTests {
    @Test func theScreenIsOffOutsideItsWindowAndNothingPlays() throws {
        var run = try Run()
        run.core.powerPlan = Schedule(from: 7 * 60, until: 22 * 60)
        // 06:59 on a Wednesday: off, paused, and the status says when it comes on.
        let night = run.at(1, .localTime(weekday: 3, minute: 7 * 60 - 1))
        #expect(night.contains(.screenPower(false)) && night.contains(.player(.pause(true))))
        #expect(run.core.status.screen == .off && run.core.status.screenNextChange == "07:00")
        #expect(run.at(60, .localTime(weekday: 3, minute: 7 * 60 - 1)).isEmpty, "the same minute again: nothing")
        let morning = run.at(60, .localTime(weekday: 3, minute: 7 * 60))
        #expect(morning.contains(.screenPower(true)) && morning.contains(.player(.pause(false))))
        #expect(run.core.status.screen == .on && run.core.status.screenNextChange == "22:00")
        // Without a plan the screen is never touched.
        var plain = try Run()
        #expect(plain.at(1, .localTime(weekday: 3, minute: 3 * 60)).isEmpty && plain.core.status.screen == nil)
    }

    /// `power-plan off` sets the plan aside with the screen on (Home Assistant's switch); `on`
    /// takes it up again as it stands at this minute.
    @Test func thePlanSetAsideKeepsTheScreenOnUntilItIsFollowedAgain() throws {
        var run = try Run()
        run.core.powerPlan = Schedule(from: 7 * 60, until: 22 * 60)
        _ = run.at(1, .localTime(weekday: 3, minute: 23 * 60))
        #expect(run.core.status.screen == .off && run.core.status.powerPlanFollowed == true)
        let aside = run.at(1, .command(.powerPlan(false), from: .mqtt, request: 1))
        #expect(aside.contains(.screenPower(true)) && aside.contains(.player(.pause(false))))
        #expect(aside.contains(.reply(1, ControlReply(ok: true, message: "power plan set aside"))))
        #expect(run.core.status.screen == .on && run.core.status.powerPlanFollowed == false)
        #expect(run.at(60, .localTime(weekday: 3, minute: 23 * 60 + 1)).isEmpty, "the plan's minutes pass it by")
        let again = run.at(1, .command(.powerPlan(true), from: .mqtt, request: 2))
        #expect(again.contains(.screenPower(false)) && again.contains(.player(.pause(true))))
        #expect(run.core.status.screen == .off && run.core.status.powerPlanFollowed == true)
        let twice = run.at(1, .command(.powerPlan(true), from: .control, request: 3))
        #expect(twice == [.reply(3, ControlReply(ok: true, message: "the power plan is followed already"))])
        // Without a plan there is nothing to set aside.
        var plain = try Run()
        #expect(
            plain.at(1, .command(.powerPlan(false), from: .control, request: 4))
                == [.reply(4, .refused("there is no power plan to follow ([screen] on and off)"))])
        #expect(plain.core.status.powerPlanFollowed == nil)
    }

    /// `[screen] idle_off`: the screen sleeps after that long without a person (a key, a tap,
    /// `presence`), and a person wakes it; the plan wins when it says off.
    @Test func theScreenSleepsWithoutAPersonAndWakesForOne() throws {
        var run = try Run()
        run.core.idleOff = 60
        #expect(run.core.nextDeadline == 60, "the start counts as a person")
        #expect(run.core.status.screen == .on && run.core.status.present == true)
        let asleep = run.at(60, .tick)
        #expect(asleep.contains(.screenPower(false)) && asleep.contains(.player(.pause(true))))
        #expect(asleep.contains(.status("screen off (no one for 60 s ([screen] idle_off)); nothing plays meanwhile")))
        #expect(run.core.status.screen == .off && run.core.status.present == false && run.core.nextDeadline == nil)
        // A person: `presence` (a motion sensor's key, MQTT's command/presence) wakes it.
        let woke = run.at(5, .command(.presence, from: .mqtt, request: 1))
        #expect(woke.contains(.screenPower(true)) && woke.contains(.player(.pause(false))))
        #expect(woke.contains(.reply(1, ControlReply(ok: true, message: "presence: the screen wakes"))))
        #expect(run.core.nextDeadline == 125)
        // Any key or tap counts as a person: the wait starts again.
        _ = run.at(50, .command(.next, from: .hotkey))
        #expect(run.core.nextDeadline == 175)
        #expect(run.at(1, .command(.presence, from: .control, request: 2)).replies.first?.message == "presence noted")
        // The plan says off: presence does not wake the screen, and its on leaves it to presence.
        run.core.powerPlan = Schedule(from: 7 * 60, until: 22 * 60)
        _ = run.at(1, .localTime(weekday: 3, minute: 23 * 60))
        #expect(run.core.status.screen == .off)
        #expect(!run.at(1, .command(.presence, from: .mqtt)).contains(.screenPower(true)))
        let slept = run.at(120, .tick)
        #expect(!slept.contains(.screenPower(false)), "off already")
        #expect(run.at(1, .localTime(weekday: 4, minute: 7 * 60)).isEmpty, "morning: no one there yet")
        #expect(run.at(1, .command(.presence, from: .mqtt)).contains(.screenPower(true)))
    }

    /// A toast: its words over the picture for 10 s and in the status; a new one takes its place
    /// and its time starts again. The volume and mute go to the player. Their words, bounded.
    @Test func aToastShowsForTenSecondsAndTheSoundIsThePlayers() throws {
        var run = try Run()
        let shown = run.at(5, .command(.toast("Back in 5 minutes"), from: .mqtt, request: 1))
        #expect(shown.contains(.player(.overlay(.message("Back in 5 minutes")))))
        #expect(shown.contains(.reply(1, ControlReply(ok: true, message: "shown for 10 s"))))
        #expect(run.core.status.toast == "Back in 5 minutes" && run.core.nextDeadline == 15)
        _ = run.at(4, .command(.toast("Closing soon"), from: .control))
        #expect(run.core.nextDeadline == 19 && run.core.status.toast == "Closing soon")
        #expect(!run.at(9.9, .tick).contains(.player(.overlay(.message(nil)))))
        #expect(run.at(0.1, .tick).contains(.player(.overlay(.message(nil)))))
        #expect(run.core.status.toast == nil && run.core.nextDeadline == nil)
        #expect(
            run.at(1, .command(.volume(35), from: .mqtt, request: 2))
                == [.player(.volume(35)), .reply(2, ControlReply(ok: true, message: "volume 35"))])
        #expect(run.at(1, .command(.mute(true), from: .control)) == [.player(.mute(true))])
        // `[screen] toast_seconds = 3`: three seconds, said in the reply.
        run.core.toastSeconds = 3
        let short = run.at(1, .command(.toast("Soon"), from: .control, request: 3))
        #expect(short.contains(.reply(3, ControlReply(ok: true, message: "shown for 3 s"))))
        #expect(run.core.nextDeadline == run.t + 3)
        #expect(Action.parse(words: ["volume", "42.0"]) == .success(.volume(42)))
        for bad in ["101", "-1", "4.5", "loud"] {
            #expect(Action.parse(words: ["volume", bad]) == .failure(.badArgument("volume", bad, .percent)))
        }
        #expect(Action.parse(name: "toast", argument: "  two words  ") == .success(.toast("two words")))
        let long = String(repeating: "x", count: Action.toastLimit + 1)
        #expect(Action.parse(name: "toast", argument: long) == .failure(.badArgument("toast", long, .text)))
        #expect(Action.parse(name: "toast", argument: "a\nb") == .failure(.badArgument("toast", "a\nb", .text)))
        #expect(Action.parse(words: ["mute", "OFF"]) == .success(.mute(false)))
    }

    /// A wall's screen: a clip asked of it goes to the whole group, and plays when the group's
    /// copy comes back; on a wall that follows a leader, a step or a clip asked of a follower is
    /// refused with the leader's name; an unknown clip is refused as anywhere.
    @Test func aWallsClipGoesToTheGroupAndAFollowerSendsStepsAndClipsToItsLeader() throws {
        var run = try Run(ClipAndPressTests.kiosk())
        run.settle()
        run.at(0.5, .wall(.member))
        let asked = run.at(0.5, .command(.play("promo"), from: .button, request: 3))
        #expect(asked == [.shareClip("promo", request: 3)])
        #expect(ClipAndPressTests.clips(run.at(0.5, .command(.play("promo"), from: .group))) == ["/srv/promo.mp4"])
        run.settle()
        run.at(5, .clipEnded)
        run.settle()
        #expect(run.at(0.5, .command(.next, from: .mqtt)).contains(.playlist(.next, request: nil)))
        run.at(0.5, .wall(.follows("wall-a")))
        let step = run.at(0.5, .command(.next, from: .control, request: 4))
        #expect(step.replies.first?.ok == false)
        #expect(step.replies.first?.error == "this screen follows wall-a, the leader of its wall: step on wall-a")
        let clip = run.at(0.5, .command(.play("promo"), from: .button, request: 5))
        #expect(clip.replies.first?.error == "this screen follows wall-a, the leader of its wall: play it on wall-a")
        #expect(ClipAndPressTests.clips(clip).isEmpty)
        let unknown = run.at(0.5, .command(.play("nope"), from: .control, request: 6))
        #expect(unknown.replies.first?.error?.hasPrefix("no clip scene named 'nope'") == true)
        // The leader's word comes from the group: played.
        #expect(ClipAndPressTests.clips(run.at(0.5, .command(.play("hello"), from: .group))) == ["/srv/hello.mp4"])
    }
}
