import OrientationCore
import Playback
import Testing

/// The player's rules, one test each, at explicit times: no libmpv, no clock, no sleep.
@Suite("Playback core")
struct PlaybackCoreTests {
    static let two = ["/d/1.png": "a", "/d/2.png": "b"]

    @Test func theSplashLeadsUntilTheFirstItemStartsThenLeaves() {
        var d = Drive(.folder(splash: "/s.png"), files: Self.two)
        d.send(.start)
        #expect(d.played() == ["/s.png"])
        d.advance(1)  // the splash's one frame, then the first item
        #expect(d.played() == ["/s.png", "/d/1.png"])
        #expect(d.mpv.playlist.map(\.path) == ["/d/1.png", "/d/2.png"], "the splash left the list")
        d.advance(4)
        #expect(d.played().filter { $0 == "/s.png" }.count == 1, "never shown again: \(d.played())")
        #expect(d.events.first { $0 != .idle } == .playing("/s.png"))
    }

    /// mpv looped back to the splash before the core heard the only item fail: the splash still
    /// leaves (mpv plays it then: it is stopped), and nothing-to-play follows.
    @Test func theSplashLeavesEvenWhenMpvLoopedBackToIt() {
        var d = Drive(.folder(splash: "/s.png"), files: ["/d/1.png": "a"])
        d.mpv.bad = ["/d/1.png"]
        d.deliver = false
        d.send(.start)
        d.advance(1.5)
        #expect(d.mpv.playing == d.mpv.playlist.first?.id, "mpv plays the splash again")
        d.deliver = true
        d.deliverAll()
        d.advance(0.5)
        // The session hears that nothing plays when the message says so (here the core stops
        // mpv itself, and mpv, given the splash at once, never says it is idle).
        let stop = d.trace.firstIndex { $0.hasSuffix("command stop") } ?? 0
        let said = d.trace[stop...].firstIndex { $0.hasSuffix("said idle") }
        let message = d.trace.firstIndex { $0.contains("Nothing to play") }
        #expect(said != nil && message != nil && said! < message!, "\(d.trace.joined(separator: "\n"))")
        #expect(
            d.core.overlays.message?.hasPrefix("Nothing to play (the last: 1.png") == true,
            "\(d.core.overlays) \(d.trace.joined(separator: "\n"))")
        #expect(d.mpv.playlist.map(\.path) == ["/s.png"], "the splash, shown while nothing can play")
    }

    /// Was a 10 s stall end to end with mpv in its own process: the first item failed and mpv went
    /// idle before the second was appended, and mpv does not go on to an entry added after its end.
    @Test func anItemAppendedAfterMpvRanOutPlaysWhenMpvSaysItIsIdle() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b"])
        d.mpv.bad = ["/d/1.png"]
        d.mpvRunsBetweenCommands = true
        d.send(.start)
        d.advance(0.5)
        #expect(d.played().first == "/d/1.png")
        #expect(d.played().dropFirst().first == "/d/2.png", "\(d.trace.joined(separator: "\n"))")
        #expect(!d.trace.contains { $0.contains("Nothing to play") }, "\(d.trace.joined(separator: "\n"))")
    }

    /// A `loadfile` mpv refuses is no entry added: the core does with `.refused` exactly what it
    /// does with `.added(entry: nil)`; any other refused command changes nothing.
    @Test func aRefusedLoadIsNoEntryAndOtherRefusalsChangeNothing() {
        func run(saysNoEntry: Bool) -> (commands: [MPVCommand], played: [String]) {
            var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b", "/d/3.png": "c"])
            d.mpv.refusedLoads = ["/d/2.png"]
            d.mpv.refusalSaysNoEntry = saysNoEntry
            d.send(.start)
            d.advance(5)
            return (d.commands, d.played())
        }
        let refused = run(saysNoEntry: false)
        #expect(refused.commands == run(saysNoEntry: true).commands)
        #expect(refused.played.first == "/d/1.png" && !refused.played.contains("/d/2.png"), "\(refused.played)")
        var core = PlaybackCore(settings: PlayerSettings())
        #expect(core.handle(.refused(.stop), at: 0).isEmpty)
    }

    @Test func mpvIdleBeforeTheFirstStartIsNotNothingToPlay() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.mpv(.idle(active: true)))
        #expect(d.core.overlays.message == nil)
        #expect(d.core.nextDeadline == nil, "no retry is set")
        d.send(.start)
        d.advance(3.5)
        #expect(d.played() == ["/d/1.png", "/d/2.png", "/d/1.png", "/d/2.png"])
    }

    /// Was intermittent end to end (a removed file stayed in mpv's playlist for rounds under load).
    @Test func aRemovedFileIsNotPlayedAgainAfterTheRoundUnderWay() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b", "/d/3.png": "c"])
        d.send(.start)
        d.advance(0.5)
        d.mpv.disk["/d/2.png"] = nil
        d.send(.foldersChanged)
        d.advance(10)
        #expect(!d.played(from: 1).contains("/d/2.png"), "\(d.played())")
        #expect(d.mpv.playlist.map(\.path).sorted() == ["/d/1.png", "/d/3.png"])
    }

    /// The same with mpv's events lagging a whole item behind it: the change is made when mpv
    /// plays the entry the core believes it plays, and else at the next start.
    @Test func aRemovedFileIsNotPlayedAgainWhenEventsLag() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b", "/d/3.png": "c"])
        d.send(.start)
        d.deliver = false
        d.advance(1.2)  // mpv plays 2; the core still thinks 1
        d.mpv.disk["/d/3.png"] = nil
        d.send(.foldersChanged)
        d.t += 0.3
        d.send(.tick)  // the look: mpv has moved on, so nothing is changed yet
        #expect(d.commands.filter { if case .remove = $0 { true } else { false } }.isEmpty)
        d.deliver = true
        d.deliverAll()
        d.advance(8)
        let after = d.mpv.started.filter { $0.at >= 3 }.map(\.path)
        #expect(!after.contains("/d/3.png"), "\(d.played())")
    }

    @Test func aChangeWaitsWhileMpvIsBetweenEntries() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.start)
        d.deliver = false
        d.advance(1.05)  // mpv ended 1 and started 2; the core heard of the end only
        d.deliverOne()
        d.mpv.disk["/d/3.png"] = "c"
        let before = d.commands.count
        d.send(.foldersChanged)
        d.t += 0.2
        d.send(.tick)
        #expect(d.commands.count == before, "nothing while between entries")
        d.deliver = true
        d.deliverAll()
        #expect(d.mpv.playlist.map(\.path) == ["/d/2.png", "/d/3.png", "/d/1.png"])
    }

    @Test func aFailedEntryLeavesThePlaylistUntilItsFileChanges() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b"])
        d.mpv.bad = ["/d/2.png"]
        d.send(.start)
        d.advance(6)
        #expect(d.played().filter { $0 == "/d/2.png" }.count == 1, "\(d.played())")
        #expect(d.events.contains(.fileFailed("/d/2.png", reason: "loading failed")))
        #expect(!d.mpv.playlist.map(\.path).contains("/d/2.png"))
        // The file is copied again (a new stamp), and plays.
        d.mpv.bad = []
        d.mpv.disk["/d/2.png"] = "b2"
        d.send(.foldersChanged)
        let mended = d.mpv.started.count
        d.advance(3)
        #expect(d.played(from: mended).contains("/d/2.png"), "\(d.played())")
    }

    @Test func aMissingFileIsNamedInTheSystemsWordsAndItsMessageStaysItsTime() {
        var settings = PlayerSettings()
        settings.playlist = ["/d/gone.mp4", "/x/ok.mp4"]
        settings.failureMessageTime = .seconds(5)
        var d = Drive(settings)
        d.scanned = PlaylistScan(entries: [
            .init(entry: "/d/gone.mp4", items: [.init("/d/gone.mp4", stamp: "missing")], description: ""),
            .init(entry: "/x/ok.mp4", items: [.init("/x/ok.mp4", stamp: "1")], description: ""),
        ])
        d.send(.start)
        let why = "/d/gone.mp4: no such file or directory"
        #expect(d.events.contains(.fileFailed("/d/gone.mp4", reason: why)))
        #expect(d.core.overlays.message == "Cannot play gone.mp4: \(why)")
        d.advance(4)
        #expect(d.core.overlays.message != nil, "up for 5 s at least")
        d.advance(1.5)
        #expect(d.core.overlays.message == nil)
    }

    @Test func nothingToPlayShowsTheSplashWithTheReasonAndTriesAgain() {
        var settings = PlayerSettings.folder(splash: "/s.png")
        settings.retryInterval = .seconds(10)
        var d = Drive(settings, files: [:])
        d.send(.start)
        #expect(d.core.overlays.message == "Nothing to play (d: a folder with 0 media files); trying again")
        #expect(d.played().last == "/s.png")
        d.advance(5)
        d.mpv.disk["/d/new.png"] = "n"  // copied in, no watch event: the retry finds it
        d.advance(6)
        #expect(d.played().last == "/d/new.png")
        #expect(d.core.overlays.message == nil)
    }

    /// Was intermittent end to end (a black frame through the render API): nothing is drawn from
    /// an item's start until its first frame, a second at most.
    @Test func overlaysWaitForTheItemsFirstFrame() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.start)
        d.deliver = false
        d.advance(1)  // mpv starts 2.png; its first frame has not come
        d.send(.mpv(.startFile(entry: 2, path: nil)))
        let before = d.overlayCommands.count
        var content = d.core.overlays
        content.title = "2.png"
        d.send(.overlays(content))
        #expect(d.overlayCommands.count == before, "no redraw before the first frame")
        d.send(.mpv(.fileLoaded))
        #expect(d.overlayCommands.count == before)
        d.send(.mpv(.playbackRestart))
        // This mpv's first text waits 0.2 s more: libass's font setup would hold the frame back.
        // (Its window stopped waiting for a resize at the first item's first frame: a second.)
        #expect(d.overlayCommands.count == before)
        #expect(d.core.nextDeadline == d.t + 0.2)
        d.t += 0.2
        d.send(.tick)
        #expect(d.overlayCommands.count == before + 1)
        // Its next item's first frame draws at once.
        d.send(.mpv(.startFile(entry: 1, path: nil)))
        content.title = "1.png again"
        d.send(.overlays(content))
        #expect(d.overlayCommands.count == before + 1)
        d.send(.mpv(.playbackRestart))
        #expect(d.overlayCommands.count == before + 2)
        // With no first frame at all, a second at most.
        d.send(.mpv(.startFile(entry: 1, path: nil)))
        content.title = "1.png"
        d.send(.overlays(content))
        d.t += 1
        d.send(.tick)
        #expect(d.overlayCommands.count == before + 3)
    }

    /// The surface strategy turns the picture by the orientation beyond what the output shows
    /// upright: a landscape panel that cannot turn shows landscape-right unturned.
    @Test func theSurfaceTurnsThePictureByTheOrientationBeyondWhatThePanelShows() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.start)
        let cases: [(InterfaceOrientation, InterfaceOrientation, Int64)] = [
            (.landscapeRight, .landscapeRight, 0), (.landscapeLeft, .landscapeRight, 180),
            (.portrait, .landscapeRight, 270), (.landscapeRight, .portrait, 90), (.portrait, .portrait, 0),
        ]
        for (o, panel, angle) in cases {
            d.send(.apply(o, .surface, nil, panel: panel))
            let rotate = d.commands.last { if case .set("video-rotate", _) = $0 { true } else { false } }
            #expect(rotate == .set("video-rotate", .int(angle)), "\(o) on a panel showing \(panel)")
            #expect(d.core.surfaceAngle == Int(angle))
        }
    }

    @Test func eachOverlayLevelIsSentOnlyWhenItChanges() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.mpv(.osdSize(width: 800, height: 1280)))
        var content = OverlayContent()
        content.clock = "12:00"
        d.send(.overlays(content))
        d.send(.overlays(content))
        d.send(.layout(.fullscreen))
        #expect(d.overlayCommands.count == 1)
        content.message = "hello"
        d.send(.overlays(content))
        #expect(d.overlayCommands.map { $0[1] } == ["10", "30"])
        d.send(.overlaysHidden(true))
        #expect(d.overlayCommands.suffix(2).map { $0[2] } == ["none", "none"])
    }

    @Test func stepsAreAnsweredOnceWithWhatPlaysAndOneBeforeTheFirstStartWaitsForIt() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b", "/d/3.png": "c"])
        d.deliver = false
        d.send(.start)
        d.send(.step(.next, request: 1))  // before the first start
        d.send(.step(.next, request: 2))
        d.deliver = true
        d.deliverAll()
        #expect(d.replies[1] == ["/d/2.png"])
        #expect(d.replies[2] == ["/d/3.png"])
        d.send(.step(.previous, request: 3))
        #expect(d.replies[3] == ["/d/2.png"])
        #expect(d.mostChangesInFlight == 1)
    }

    /// mpv's own idle event from before the playlist was loaded can reach the core after the
    /// load: it ends nothing, and a step asked for meanwhile is answered by its own start.
    @Test func aLateIdleFromBeforeTheLoadDoesNotAnswerAStep() {
        var d = Drive(.folder(), files: Self.two)
        d.deliver = false
        d.send(.start)
        d.send(.step(.next, request: 1))
        d.mpv.events.insert(.idle(active: nil), at: 0)  // mpv's idle at its start, not handled yet
        d.deliver = true
        d.deliverAll()
        #expect(d.replies[1] == ["/d/2.png"])
    }

    /// A tiled or full-screen window is mapped at the video's own size, and its first frame at the
    /// screen's size follows the compositor's resize: this mpv's first text (libass's font setup, in
    /// the thread that answers the compositor) waits for that resize, a second at most.
    @Test func theFirstTextWaitsForTheCompositorsResizeASecondAtMost() {
        for (resized, known) in [(true, true), (false, true), (true, false)] {
            var d = Drive(.folder(), files: Self.two)
            d.send(.start)
            d.deliver = false
            // The window at the video's size, known before the first frame or after it (mpv says
            // its width, then its height).
            if known {
                d.send(.mpv(.osdSize(width: 640, height: 0)))
                d.send(.mpv(.osdSize(width: 640, height: 360)))
            }
            var content = d.core.overlays
            content.title = "1.png"
            d.send(.overlays(content))
            let before = d.overlayCommands.count
            d.send(.mpv(.playbackRestart))
            #expect(d.core.nextDeadline == d.t + 1)
            d.t += 0.5
            d.send(.tick)
            if !known {
                d.send(.mpv(.osdSize(width: 640, height: 0)))
                d.send(.mpv(.osdSize(width: 640, height: 360)))
            }
            #expect(d.overlayCommands.count == before)
            if resized {
                d.send(.mpv(.osdSize(width: 1280, height: 800)))  // the compositor's size
                #expect(d.core.nextDeadline == d.t + 0.2)
                d.t += 0.2
            } else {
                d.t += 0.5
            }
            d.send(.tick)
            #expect(d.overlayCommands.count == before + 1, "resized: \(resized)")
            // The window keeps its size: the next item's first frame draws at once.
            d.send(.mpv(.startFile(entry: 2, path: nil)))
            content.title = "2.png"
            d.send(.overlays(content))
            d.send(.mpv(.playbackRestart))
            #expect(d.overlayCommands.count == before + 2)
        }
    }

    /// An mpv's first item may take seconds to its first frame (its window is opened, mapped and
    /// sized first: 1.7 s under emulation): its text waits for that frame and the resize after it,
    /// not the second later items get.
    @Test func theFirstItemsTextWaitsForASlowFirstFrame() {
        var d = Drive(.folder(), files: Self.two)
        d.deliver = false
        d.send(.start)
        d.send(.scanned(PlaylistScan(entries: [.init(entry: "/d", items: [.init("/d/1.png")], description: "")])))
        d.send(.mpv(.startFile(entry: 1, path: "/d/1.png")))
        var content = d.core.overlays
        content.title = "1.png"
        d.send(.overlays(content))
        d.t += 1.7
        d.send(.tick)
        #expect(d.overlayCommands.isEmpty, "nothing before the first frame")
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        d.send(.mpv(.playbackRestart))
        #expect(d.overlayCommands.isEmpty)
        d.t += 0.3
        d.send(.mpv(.osdSize(width: 1280, height: 800)))
        d.t += 0.2
        d.send(.tick)
        #expect(d.overlayCommands.count == 1)
        // The next item's start: a second, as ever.
        d.send(.mpv(.startFile(entry: 2, path: "/d/2.png")))
        #expect(d.core.nextDeadline.map { $0 <= d.t + 1 } == true)
    }

    @Test func aStepWithNoStartIsAnsweredAfterThreeSeconds() {
        var d = Drive(.folder(), files: Self.two)
        d.send(.start)
        d.deliver = false
        d.send(.step(.next, request: 7))
        d.mpv.events = []  // mpv never says
        d.advance(2.9)
        #expect(d.replies[7] == nil)
        d.advance(0.2)
        #expect(d.replies[7] == ["/d/1.png"])
    }

    @Test func aStallLoadsTheItemAgainAndTooManyGiveUp() {
        var settings = PlayerSettings()
        settings.stallTimeout = .seconds(4)
        settings.stallLimit = 2
        var core = PlaybackCore(settings: settings)
        var out = core.handle(.start, at: 0) + core.handle(.mpv(.startFile(entry: 1, path: testPattern)), at: 0.1)
        out += core.handle(.mpv(.fileLoaded), at: 0.1)
        var t = 1.0
        var stalls: [PlayerEvent] = []
        while t < 12 {
            out = core.handle(.tick, at: t)
            if out.contains(.samplePosition) { out = core.handle(.sample(PositionSample(position: 2.0)), at: t) }
            stalls += out.compactMap { if case .event(let e) = $0 { e } else { nil } }
            t += 1
        }
        #expect(stalls.first == .stalled(testPattern))
        #expect(stalls.count == 2)
        if case .gaveUp(let why)? = stalls.last {
            #expect(why.hasPrefix("playback stalled 2 times within 600 s"))
        } else {
            Issue.record("no give-up: \(stalls)")
        }
        // A still image is no stall.
        out = core.handle(.sample(PositionSample(position: 2.0, image: true)), at: 30)
        #expect(core.handle(.sample(PositionSample(position: 2.0, image: true)), at: 40).isEmpty)
    }

    @Test func aClipPlaysBeforeTheLoopsEntryAndTheLoopGoesOnWhereItWas() {
        var d = Drive(.folder(), files: Self.two)
        d.mpv.itemTime = 5
        d.send(.start)
        d.advance(2)
        d.send(.clip("/c.mp4", position: 2))
        #expect(d.mpv.playlist.map(\.path) == ["/c.mp4", "/d/1.png", "/d/2.png"])
        d.advance(5)
        #expect(d.events.contains(.clipEnded))
        #expect(d.commands.contains(.seek(2)))
        #expect(d.mpv.playlist.map(\.path) == ["/d/1.png", "/d/2.png"])
        #expect(d.core.clip == nil)
    }

    @Test func theShapeIsAskedForUntilMpvKnowsItOrTwoSecondsPass() {
        var core = PlaybackCore(settings: PlayerSettings())
        _ = core.handle(.start, at: 0)
        _ = core.handle(.mpv(.startFile(entry: 1, path: testPattern)), at: 0)
        #expect(core.handle(.mpv(.fileLoaded), at: 0).contains(.sampleShape))
        var t = 0.0
        var shape: PlayerEvent?
        for _ in 0..<60 where shape == nil {
            let out = core.handle(.shapeSample(nil), at: t) + core.handle(.tick, at: t + 0.05)
            shape = out.compactMap { if case .event(let e) = $0 { e } else { nil } }.first
            t += 0.05
        }
        #expect(shape == .shape(.unknown))
        #expect(t > 1.9 && t < 2.1)
    }

    @Test func aStickIsThePlaylistAndASchedulesEdgeIsTheNextLook() {
        var settings = PlayerSettings.folder()
        settings.playlist = ["/d", "/late.mp4"]
        settings.itemOptions["/late.mp4"] = ItemOptions(schedule: Schedule(from: 600, until: 660))
        var core = PlaybackCore(settings: settings)
        _ = core.handle(.start, at: 0)
        let entries: [PlaylistScan.Entry] = [
            .init(entry: "/d", items: [.init("/d/1.png")], description: ""),
            .init(entry: "/late.mp4", items: [.init("/late.mp4")], description: ""),
        ]
        _ = core.handle(.scanned(PlaylistScan(entries: entries, minute: 598, second: 30)), at: 0)
        _ = core.handle(.mpv(.startFile(entry: 1, path: "/d/1.png")), at: 0)
        _ = core.handle(.mpv(.playbackRestart), at: 0)
        _ = core.handle(.tick, at: 1)  // the first text, a second after the first frame (no resize)
        #expect(core.items == ["/d/1.png"])
        #expect(core.nextDeadline == 90.5, "at 10:00 the schedule opens")
        _ = core.handle(.tick, at: 90.5)
        _ = core.handle(.scanned(PlaylistScan(entries: entries, minute: 600)), at: 90.5)
        #expect(core.items == ["/d/1.png", "/late.mp4"])
        _ = core.handle(.foldersChanged, at: 100)
        _ = core.handle(.tick, at: 100.2)
        _ = core.handle(
            .scanned(PlaylistScan(entries: entries, stick: [.init("/media/S/x.mp4")], minute: 601)), at: 100.2)
        #expect(core.items == ["/media/S/x.mp4"])
    }

    @Test(arguments: [
        (InterfaceOrientation.portrait, AppliedStrategy.surface, 0, "bottom"), (.landscapeRight, .surface, 90, "left"),
        (.portraitUpsideDown, .surface, 180, "top"), (.landscapeLeft, .surface, 270, "right"),
        (.landscapeRight, .interface, 0, "bottom"),
    ])
    func theSurfaceTurnsOnceAndTheMarginIsOnTheViewersBottom(
        o: InterfaceOrientation, strategy: AppliedStrategy, angle: Int, side: String
    ) {
        var core = PlaybackCore(settings: PlayerSettings())
        let out = core.handle(.apply(o, strategy, .inline), at: 0)
        #expect(out.first == .mpv(.set("video-rotate", .int(Int64(angle)))))
        let margin: Double = o.isPortrait ? 0.4 : 0
        #expect(out.contains(.mpv(.set("video-margin-ratio-\(side)", .double(margin)))))
        // Through the render API, a filter instead (mpv 0.35 aborts on video-rotate there).
        var filtered = PlaybackCore(settings: PlayerSettings(), rotateByFilter: true)
        let filters = filtered.handle(.apply(o, strategy, nil), at: 0).filter {
            if case .mpv(.command(let w)) = $0 { w.first == "vf" } else { false }
        }
        #expect(filters.count == (angle == 0 ? 0 : 1))
    }

    /// A margin mpv has already is not written again (each write is a round trip, taken by mpv's
    /// video output in the thread that also answers the compositor); a new mpv is told them all.
    @Test func marginsAreWrittenOnlyWhenTheyChangeAndAllToANewMpv() {
        func margins(_ out: [PlaybackEffect]) -> [String] {
            out.compactMap {
                if case .mpv(.set(let name, _)) = $0, name.hasPrefix("video-margin") { name } else { nil }
            }
        }
        var core = PlaybackCore(settings: PlayerSettings())
        #expect(margins(core.handle(.apply(.portrait, .interface, .inline), at: 0)).count == 4)
        #expect(margins(core.handle(.layout(.inline), at: 1)).isEmpty)
        #expect(margins(core.handle(.apply(.portrait, .interface, .inline), at: 2)).isEmpty)
        #expect(margins(core.handle(.layout(.fullscreen), at: 3)) == ["video-margin-ratio-bottom"])
        #expect(margins(core.handle(.apply(.landscapeRight, .interface, nil), at: 4)).isEmpty)
        _ = core.handle(.mpv(.idle(active: true)), at: 5)
        #expect(margins(core.handle(.restarted, at: 6)).count == 4)
    }

    /// A folder that changes for months: the core's memory of mpv's entries stays bounded.
    @Test func aPlaylistThatKeepsChangingKeepsTheCoreSmall() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b"])
        d.send(.start)
        for n in 0..<1500 {
            d.mpv.disk["/d/3.png"] = n % 2 == 0 ? "\(n)" : nil
            d.send(.foldersChanged)
            d.advance(1)
        }
        #expect(d.core.knownPaths <= 2 * PlaybackCore.pathsKept + 8, "\(d.core.knownPaths)")
        #expect(d.core.entries.count <= 4)
    }

    @Test func aNewMpvPlaysFromTheEntryThatPlayed() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b", "/d/3.png": "c"])
        d.send(.start)
        d.advance(1.5)
        #expect(d.mpv.started.last?.path == "/d/2.png")
        d.mpv = FakeMPV(disk: d.mpv.disk)  // the display went away and came back
        d.send(.restarted)
        #expect(d.mpv.started.map(\.path) == ["/d/1.png", "/d/2.png"])
        #expect(d.mpv.playing == 2)
    }

    /// An mpv whose compositor went away failed every item (the display's fault, not the files'):
    /// a new mpv tries them all again, and the "nothing to play" message goes.
    @Test func aNewMpvTriesWhatTheOldOneCouldNotPlay() {
        var d = Drive(.folder(), files: ["/d/1.png": "a", "/d/2.png": "b"])
        d.mpv.bad = ["/d/1.png", "/d/2.png"]
        d.send(.start)
        d.advance(1)
        #expect(d.core.overlays.message?.hasPrefix("Nothing to play") == true, "\(d.core.overlays)")
        d.mpv = FakeMPV(disk: d.mpv.disk)  // the same files, unchanged: only the display came back
        d.send(.restarted)
        d.advance(2.5)
        #expect(d.played().prefix(3) == ["/d/1.png", "/d/2.png", "/d/1.png"], "\(d.played())")
        #expect(d.core.overlays.message == nil)
    }
}

extension FakeMPV {
    init(disk: [String: String]) {
        self.init()
        self.disk = disk
    }
}

/// What mpv says one number at a time, and an idle that comes late.
@Suite("mpv's words to the core")
struct MPVWordsTests {
    /// mpv says the OSD's width and height apart: the core lays out against both once known.
    @Test func theOSDSizeIsPutTogetherFromItsTwoNumbers() {
        var d = Drive(.folder(), files: PlaybackCoreTests.two)
        var content = OverlayContent()
        content.clock = "12:00"
        d.send(.overlays(content))
        d.send(.mpv(.dimension(.osdWidth, 800)))
        d.send(.mpv(.dimension(.osdHeight, 1280)))
        let last = d.commands.last { if case .command(let w) = $0 { w.first == "osd-overlay" } else { false } }
        guard case .command(let words)? = last else {
            Issue.record("no overlay drawn: \(d.trace)")
            return
        }
        #expect(words.contains("res_x=800") || words.contains("800"), "\(words)")
        #expect(words.contains("res_y=1280") || words.contains("1280"), "\(words)")
    }

    /// The picture's display size turned by its rotation: a 90° picture is as tall as it is wide.
    @Test func thePictureSizeIsTurnedByItsRotation() {
        var settings = PlayerSettings.folder()
        settings.wall = WallTile(columns: 3, rows: 1, column: 0, row: 0, orientation: .landscapeLeft)
        var turned = Drive(settings, files: ["/d/1.png": "a"])
        var plain = Drive(settings, files: ["/d/1.png": "a"])
        for d in [0, 1] {
            var drive = d == 0 ? turned : plain
            drive.send(.apply(.landscapeLeft, .interface, .inline))
            drive.send(.mpv(.osdSize(width: 640, height: 360)))
            if d == 0 {
                drive.send(.mpv(.dimension(.videoRotate, 90)))
                drive.send(.mpv(.dimension(.videoWidth, 360)))
                drive.send(.mpv(.dimension(.videoHeight, 1920)))
                turned = drive
            } else {
                drive.send(.mpv(.videoSize(width: 1920, height: 360)))
                plain = drive
            }
        }
        let pan: (Drive) -> [MPVCommand] = {
            $0.commands.filter { if case .set("video-pan-x", _) = $0 { true } else { false } }
        }
        #expect(!pan(plain).isEmpty)
        #expect(pan(turned).last == pan(plain).last)
    }

    /// An idle event that mpv's `idle-active` no longer backs (a new playlist started since)
    /// says nothing: no idle scene, nothing stopped.
    @Test func aLateIdleSaysNothing() {
        var d = Drive(.folder(), files: PlaybackCoreTests.two)
        d.send(.start)
        d.advance(0.5)
        let before = d.events.count
        d.send(.mpv(.idle(active: false)))
        #expect(d.events.count == before)
        #expect(!d.core.idle)
    }
}
