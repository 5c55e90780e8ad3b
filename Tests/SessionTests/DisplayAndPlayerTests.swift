import OrientationCore
import Session
import Testing
import Wire

/// The session's rules for its display and its player, at explicit times: the compositor late,
/// gone and back, mpv lost, the wait that ends in a failure.
@Suite("Session core: display and player")
struct DisplayAndPlayerTests {
    static let sway = DisplayReport(backend: "sway", turnsOutputs: true, reason: "test")

    /// A session whose display was found `state` at the start (10 s wait).
    static func started(_ state: DisplayState, display: DisplayAbilities = .kiosk) throws -> (Run, [SessionEffect]) {
        var run = try Run(display: display, report: sway)
        run.core.displayWait = 10
        let out = run.at(0, .displayChecked(state))
        return (run, out)
    }

    static func players(_ out: [SessionEffect]) -> [PlayerEffect] {
        out.compactMap { if case .player(let p) = $0, p == .start || p == .restart { p } else { nil } }
    }

    @Test func aDisplayThereAtTheStartPlaysAtOnceAndItsOutputsAreWatched() throws {
        let (_, out) = try Self.started(.present)
        #expect(out == [.player(.start), .watchOutputs(true)])
    }

    @Test func aLateCompositorIsWaitedForThenFoundAndTheVideoStarts() throws {
        var (run, out) = try Self.started(
            .waiting("no compositor at wayland-1"), display: .init(canRotateOutput: false, ownsOutput: true))
        #expect(Self.players(out).isEmpty, "nothing plays before the display answers")
        #expect(out.contains(.watchDisplay(true)))
        #expect(run.core.status.display.problem == "no compositor at wayland-1")
        #expect(run.at(0.5, .displayChecked(.waiting("no compositor at wayland-1"))) == [])
        out = run.at(0.5, .displayChecked(.present))
        #expect(out == [.watchDisplay(false), .startDisplay(redetect: false)])
        // The display's answer: it turns outputs; the player starts after the policy heard it.
        out = run.at(0, .displayProbed(.kiosk, Self.sway))
        #expect(out.suffix(2) == [.player(.start), .watchOutputs(true)])
        #expect(run.core.nextDeadline == nil || run.core.nextDeadline! < 10, "no failure pending")
    }

    @Test func aDisplayThatNeverAnswersEndsTheSessionAfterTheWait() throws {
        var (run, _) = try Self.started(.waiting("no compositor at wayland-1"))
        #expect(run.core.nextDeadline == 10)
        _ = run.at(5, .displayChecked(.waiting("sway's socket refuses connections")))
        let out = run.at(5, .tick)
        #expect(out == [.end(failure: "sway's socket refuses connections (waited 10 s; display.wait sets how long)")])
    }

    @Test func noDisplayAtAllPlaysAnywayAndEndsAfterTheWaitUnlessOneAppears() throws {
        var (run, out) = try Self.started(.missing("no WAYLAND_DISPLAY, DISPLAY or DRM device"))
        #expect(Self.players(out) == [.start])
        #expect(out.contains(.warning("no WAYLAND_DISPLAY, DISPLAY or DRM device; exiting in 10 s unless one appears")))
        #expect(run.at(3, .displayChecked(.present)) == [.watchDisplay(false)])
        #expect(run.core.nextDeadline.map { $0 < 13 } != false, "\(String(describing: run.core.nextDeadline))")
        #expect(!run.at(20, .tick).contains(.end(failure: nil)))
    }

    /// Asked twice, a second apart: mpv hears its compositor go before the compositor's socket goes.
    @Test func mpvLostWithTheDisplayThereStartsAgainASecondLater() throws {
        var (run, _) = try Self.started(.present)
        #expect(run.at(1, .playerLost) == [.checkDisplay])
        #expect(run.at(0, .displayChecked(.present)) == [])
        #expect(run.core.nextDeadline == 2)
        #expect(run.at(1, .tick) == [.checkDisplay])
        let out = run.at(0, .displayChecked(.present))
        #expect(Self.players(out) == [.restart])
        // The same, with the compositor's socket gone by the second look: the display's loss.
        #expect(run.at(5, .playerLost) == [.checkDisplay])
        _ = run.at(0, .displayChecked(.present))
        _ = run.at(1, .tick)
        let gone = run.at(0, .displayChecked(.waiting("no socket at wayland-1")))
        #expect(gone.contains(.watchDisplay(true)) && Self.players(gone).isEmpty)
    }

    @Test func mpvLostWithItsCompositorWaitsThenComesBackTurningTheOutputAgain() throws {
        var (run, _) = try Self.started(.present)
        _ = run.at(1, .playerLost)
        var out = run.at(0, .displayChecked(.waiting("sway's socket refuses connections")))
        #expect(out.contains(.watchOutputs(false)))
        #expect(out.contains(.watchDisplay(true)))
        #expect(run.core.display.canRotateOutput == false, "nothing to turn while the compositor is gone")
        #expect(Self.players(out).isEmpty)
        // Outputs changing meanwhile are no one's to look at.
        #expect(run.at(1, .outputsChanged) == [])
        out = run.at(2, .displayChecked(.present))
        #expect(out == [.watchDisplay(false), .startDisplay(redetect: true)])
        out = run.at(0, .displayProbed(.kiosk, Self.sway))
        #expect(run.core.display.canRotateOutput, "the interface strategy is back")
        #expect(out.suffix(2) == [.player(.restart), .watchOutputs(true)])
        #expect(run.at(1, .outputsChanged) == [.reassertDisplay])
    }

    /// The status lists the items that failed, each once with its latest reason, until it plays;
    /// at most the latest 32.
    @Test func theStatusKeepsEachFailedItemWithWhyUntilItPlays() throws {
        var (run, _) = try Self.started(.present)
        _ = run.at(0.5, .fileFailed(path: "/v/b.mp4", reason: "no such file"))
        _ = run.at(0.5, .fileFailed(path: "/v/c.mp4", reason: "unsupported codec"))
        _ = run.at(0.5, .fileFailed(path: "/v/b.mp4", reason: "truncated"))
        #expect(
            run.core.status.failed == [
                ItemFailure(item: "/v/c.mp4", reason: "unsupported codec"),
                ItemFailure(item: "/v/b.mp4", reason: "truncated"),
            ])
        _ = run.at(0.5, .playing(item: "/v/b.mp4", title: "b"))
        #expect(run.core.status.failed == [ItemFailure(item: "/v/c.mp4", reason: "unsupported codec")])
        for n in 0..<40 { _ = run.at(0.1, .fileFailed(path: "/v/\(n).mp4", reason: "bad")) }
        #expect(run.core.status.failed.count == 32 && run.core.status.failed.last?.item == "/v/39.mp4")
    }

    /// mpv lives on when its compositor is killed (a GPU video output), failing every item: the
    /// failure is the display's. The same wait, nothing said to play, a new mpv when it is back.
    @Test func itemsFailingWithTheCompositorGoneAreTheDisplaysFailure() throws {
        var (run, _) = try Self.started(.present)
        _ = run.at(0.5, .playing(item: "/v/a.mp4", title: "a"))
        var out = run.at(0.5, .fileFailed(path: "/v/b.mp4", reason: "no audio or video data played"))
        #expect(out.contains(.checkDisplay))
        #expect(!run.at(0, .fileFailed(path: "/v/b.mp4", reason: "again")).contains(.checkDisplay), "one at a time")
        out = run.at(0.1, .displayChecked(.waiting("sway's socket refuses connections")))
        #expect(out.contains(.watchDisplay(true)) && out.contains(.watchOutputs(false)))
        #expect(run.core.status.playing == nil, "nothing plays while the display is gone")
        #expect(!run.core.display.canRotateOutput)
        #expect(
            !run.at(1, .fileFailed(path: "/v/a.mp4", reason: "no audio or video data played")).contains(.checkDisplay))
        // Back within the wait: found anew (a new socket), the output turned, a new mpv.
        out = run.at(2, .displayChecked(.present))
        #expect(out == [.watchDisplay(false), .startDisplay(redetect: true)])
        out = run.at(0, .displayProbed(.kiosk, Self.sway))
        #expect(run.core.display.canRotateOutput)
        #expect(out.suffix(2) == [.player(.restart), .watchOutputs(true)])
        // An item that fails with the display there is only the item's.
        #expect(run.at(1, .fileFailed(path: "/v/b.mp4", reason: "bad")).contains(.checkDisplay))
        #expect(run.at(0, .displayChecked(.present)) == [])
        #expect(Self.players(run.effects.suffix(1)).isEmpty)
    }

    /// While playing the display is asked every few seconds whether it answers (mpv may sit idle
    /// with its compositor gone, and say nothing).
    @Test func theDisplayIsAskedWhileItPlays() throws {
        var (run, _) = try Self.started(.present)
        run.core.presenceInterval = 2
        #expect(run.core.nextDeadline == 2)
        #expect(!run.at(1, .tick).contains(.checkDisplay))
        #expect(run.at(1, .tick).contains(.checkDisplay))
        #expect(run.at(0, .displayChecked(.present)) == [])
        #expect(run.core.nextDeadline == 4)
        #expect(!run.at(1, .tick).contains(.checkDisplay))
        #expect(run.at(1, .tick).contains(.checkDisplay))
        let out = run.at(0, .displayChecked(.waiting("no socket at wayland-1")))
        #expect(out.contains(.watchDisplay(true)))
        #expect(run.core.nextDeadline == 14, "the wait's end; no looks while waiting")
    }

    /// Gone for the whole wait: the session ends (non-zero, for systemd), however it went.
    @Test func itemsFailingWithTheCompositorGoneForTheWholeWaitEndTheSession() throws {
        var (run, _) = try Self.started(.present)
        _ = run.at(1, .fileFailed(path: "/v/a.mp4", reason: "no audio or video data played"))
        _ = run.at(0, .displayChecked(.waiting("no socket at wayland-1")))
        #expect(run.at(9.9, .tick).allSatisfy { if case .end = $0 { false } else { true } })
        #expect(
            run.at(0.1, .tick) == [.end(failure: "no socket at wayland-1 (waited 10 s; display.wait sets how long)")])
    }

    /// Losses with the compositor gone are the display's, not mpv's: a compositor restarted three
    /// times in a minute (and back each time) does not end the session.
    @Test func lossesWithTheCompositorGoneAreNotCounted() throws {
        var (run, _) = try Self.started(.present)
        for t in [1.0, 10, 20, 30] {
            #expect(run.at(t - run.t, .playerLost) == [.checkDisplay])
            _ = run.at(0, .displayChecked(.waiting("no socket at wayland-1")))
            _ = run.at(1, .displayChecked(.present))
            _ = run.at(0, .displayProbed(.kiosk, Self.sway))
        }
        #expect(!run.effects.contains { if case .end = $0 { true } else { false } })
        #expect(Self.players(run.effects).filter { $0 == .restart }.count == 4)
    }

    @Test func threeLossesInAMinuteEndTheSession() throws {
        var (run, _) = try Self.started(.present)
        for t in [1.0, 20, 30] {
            let out = run.at(t - run.t, .playerLost)
            if out == [.checkDisplay] {
                _ = run.at(0, .displayChecked(.present))
                _ = run.at(1, .tick)
                _ = run.at(0, .displayChecked(.present))
            }
        }
        #expect(
            run.effects.last
                == .end(failure: "mpv ended on its own 3 times within a minute, its display there each time"))
        // Spread over more than a minute they do not.
        var (calm, _) = try Self.started(.present)
        for t in [1.0, 40, 80, 120] {
            #expect(calm.at(t - calm.t, .playerLost) == [.checkDisplay])
            _ = calm.at(0, .displayChecked(.present))
            _ = calm.at(1, .tick)
            _ = calm.at(0, .displayChecked(.present))
        }
    }

    @Test func theLockSwitchIsTheCoresOwnAndAKeyTogglesIt() throws {
        var run = try Run()
        #expect(run.at(1, .lockSwitch(.toggle)) == [.measureMotion])
        _ = run.at(0.2, .motion(.portrait))
        #expect(run.core.policy.locked)
        #expect(run.at(1, .lockSwitch(.on)) == [])
        #expect(run.at(1, .lockSwitch(.toggle)).contains(.sensorLock(false)))
        #expect(!run.core.policy.locked)
    }

    @Test func requestsTheShellCarriesOut() throws {
        var run = try Run()
        #expect(run.at(1, .screenshot(request: 4)) == [.screenshot(4)])
        #expect(run.at(0, .message("hello")) == [.player(.overlay(.message("hello")))])
        #expect(run.at(0, .playerGaveUp("stalled 3 times")) == [.end(failure: "stalled 3 times")])
        #expect(run.at(0, .stop) == [.end(failure: nil)])
        // greetd's session closed (its compositor died): nothing of it stays, the process included.
        #expect(
            run.at(0, .sessionEnded("login session 7 has ended"))
                == [.status("login session 7 has ended: Upright ends with it"), .end(failure: nil)])
        let out = run.at(0, .reload(PolicyConfiguration(), playlist: ["/srv/a.mp4"], request: 5))
        #expect(out.contains(.player(.playlist(["/srv/a.mp4"]))))
        #expect(out.last == .reply(5, ControlReply(ok: true)))
    }
}
