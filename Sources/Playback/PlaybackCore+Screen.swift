import OrientationCore

/// Clips, steps, stalls, the item's shape, and what the screen shows: layout, turn, overlays.
extension PlaybackCore {
    // MARK: - Clips

    /// Plays `file` once, then goes back to the loop: the entry that played, at its position. The
    /// clip goes into mpv's playlist before that entry (so mpv itself goes on to it at the clip's
    /// end), and leaves the playlist once the loop plays again. A clip asked for while the loop is
    /// still coming back takes the place of the clip that ended.
    mutating func playClip(_ file: String, position: Double?, at now: Double) -> [PlaybackEffect] {
        var out: [PlaybackEffect] = []
        var resume: (entry: Int64, time: Double?)?
        if let old = clipState, old.resume != nil {
            resume = old.resume
            if let entry = old.entry { out += remove([entry]).map { .mpv($0) } }
        } else if let entry = currentEntry {
            resume = (entry, position)
        }
        clipState = Clip(file: file, entry: nil, resume: resume)
        return out + [.mpv(add(file, append: true, options: [], why: .clip))]
    }

    /// mpv added the clip: it moves before the loop's entry and plays.
    mutating func clipAdded(_ id: Int64) -> [PlaybackEffect] {
        guard var c = clipState, c.entry == nil else { return [] }
        c.entry = id
        clipState = c
        var out: [PlaybackEffect] = []
        if let resume = c.resume, entries.contains(where: { $0.id == resume.entry }) {
            out.append(.mpv(.move(entry: id, before: resume.entry)))
            let clipEntry = entries.removeLast()
            entries.insert(clipEntry, at: entries.firstIndex { $0.id == resume.entry } ?? entries.endIndex)
        }
        return out + change(.play(entry: id), at: lastNow)
    }

    /// Entry `entry` ended: when it is the clip, the session hears of it once.
    mutating func clipEnded(_ entry: Int64) -> [PlaybackEffect] {
        guard var c = clipState, c.entry == entry, !c.ended else { return [] }
        c.ended = true
        clipState = c
        return [.event(.clipEnded)]
    }

    /// The loop plays again after a clip: at the position it had when it is the entry that was
    /// interrupted (not one stepped to meanwhile), and the clip leaves the playlist.
    mutating func resumeAfterClip(_ c: Clip) -> [PlaybackEffect] {
        clipState = nil
        var out: [PlaybackEffect] = []
        if let resume = c.resume, resume.entry == currentEntry, let time = resume.time, time > 0 {
            out.append(.mpv(.seek(time)))
        }
        if let entry = c.entry, entries.contains(where: { $0.id == entry }) { out += remove([entry]).map { .mpv($0) } }
        return out
    }

    // MARK: - Changes of the entry playing

    /// A step, a clip's start, a reload or a new playlist: sent to mpv at once when nothing else is
    /// under way, else when what is under way has started (mpv carries out one at a time, and a
    /// step's answer is the entry its own start brought).
    mutating func change(_ c: Change, at now: Double) -> [PlaybackEffect] {
        guard inFlight == nil else {
            changes.append(c)
            return []
        }
        return send(c, at: now)
    }

    private mutating func send(_ c: Change, at now: Double) -> [PlaybackEffect] {
        inFlight = (c, now + 3)
        switch c {
        case .step(let step, _): return [.mpv(.step(step))]
        case .play(let entry):
            guard entries.contains(where: { $0.id == entry }) else { return changeDone(at: now) }
            return [.mpv(.play(entry: entry))]
        case .playItem(let path):
            guard let entry = entries.first(where: { $0.path == path })?.id else { return changeDone(at: now) }
            return [.mpv(.play(entry: entry))]
        case .reload: return [.mpv(.reload)]
        case .load(let planned):
            // Planned before the change under way started: what failed since stays out.
            let list = planned.filter { failed[$0] == nil }
            if list.isEmpty { inFlight = nil }
            let out = load(list, at: now)
            // The core stops mpv itself: nothing plays from now, whether or not mpv says it is
            // idle (given the splash at once, it does not).
            return list.isEmpty ? out + [.event(.idle)] + nothingToPlay(at: now) : out
        case .splash:
            guard let splash = slate else { return changeDone(at: now) }
            return [
                .mpv(add(splash, append: false, options: ["image-display-duration=inf", "video-latency-hacks=no"]))
            ]
        }
    }

    /// The change under way started (or mpv went idle, or 3 s passed): a step is answered with what
    /// plays now, and the next change waiting is sent.
    mutating func changeDone(at now: Double) -> [PlaybackEffect] {
        var out: [PlaybackEffect] = []
        if case .step(_, let request)? = inFlight?.change { out.append(.stepped(request: request, playing: current)) }
        inFlight = nil
        while inFlight == nil, !changes.isEmpty { out += send(changes.removeFirst(), at: now) }
        return out
    }

    // MARK: - Stalls

    /// A stall is a position that stands still for the timeout while mpv is neither paused, idle,
    /// nor showing a still image; the item is loaded again, and too many stalls give up.
    mutating func stallCheck(_ s: PositionSample, at now: Double) -> [PlaybackEffect] {
        guard let current else { return [] }
        let live = isLive(current)
        // A live stream stands still for three frames' time at least (a camera at 1 fps: 3 s).
        // Until its first frame, a stream is opening, however long that takes on a loaded machine
        // or a slow network: the ordinary stall timeout applies (and its latency's buffering).
        let liveTimeout =
            firstFrameShown
            ? max(settings.liveStallTimeout.seconds, s.fps.map { $0 > 0 ? 3 / $0 : 0 } ?? 0)
            : (settings.stallTimeout?.seconds ?? 10) + (options(of: current)?.latency ?? 0)
        let held = live ? holdLatency(s) : []
        guard let timeout = live ? liveTimeout : settings.stallTimeout?.seconds else { return held }
        // A stream held at a latency waits for mpv to buffer that much again after a hiccup: while
        // more of it arrives (mpv holds more), it is not standing still.
        let arriving = live && options(of: current)?.latency != nil && (s.buffered ?? 0) > (lastBuffered ?? .infinity)
        lastBuffered = s.buffered
        if s.paused || s.idle || s.image || s.position != lastPosition || arriving {
            lastPosition = s.position
            stillSince = now
            return held
        }
        guard now - stillSince >= timeout else { return held }
        if live, let entry = currentEntry {
            return lose(
                current, entry: entry,
                why: "the stream stopped (no new picture for \((timeout * 100).rounded() / 100) s)",
                at: now)
        }
        let window = settings.stallWindow.seconds
        stalls = stalls.filter { now - $0 < window } + [now]
        var out: [PlaybackEffect]
        if stalls.count >= settings.stallLimit {
            let text =
                "playback stalled \(stalls.count) times within \(Int(window)) s, the last on \(current)"
            out = [.event(.gaveUp(text))]
            stalls = []
        } else {
            out = [.event(.stalled(named(current)))]
        }
        stillSince = now
        lastPosition = nil
        return out + change(.reload, at: now)
    }

    /// A live stream with a `latency` is held that far behind its newest picture: what mpv holds
    /// ahead of its position is the latency (beyond the network's), and a speed a little over or
    /// under 1 (at most 5 %, 1 % for each 0.2 s off; within 0.1 s, 1) brings it back. Closed
    /// players do the same (hls.js, ExoPlayer: 0.97–1.05). The speed is set when it changes only.
    mutating func holdLatency(_ s: PositionSample) -> [PlaybackEffect] {
        guard let current, firstFrameShown, let target = options(of: current)?.latency, let buffered = s.buffered,
            !s.paused, !s.idle
        else { return [] }
        let speed = Self.speed(holding: target, buffered: buffered)
        guard speed != heldSpeed else { return [] }
        heldSpeed = speed
        return [.mpv(.set("speed", .double(speed)))]
    }

    /// The speed that brings `buffered` seconds back to `target`.
    public static func speed(holding target: Double, buffered: Double) -> Double {
        let off = buffered - target
        guard abs(off) > 0.1 + 1e-9 else { return 1 }  // within 0.1 s (less what floating point adds)
        let step = min(5, max(1, (abs(off) / 0.2).rounded(.down)))
        return (100 + (off > 0 ? step : -step)) / 100
    }

    /// A live stream that stands still, or whose server went away, is lost: the slate, and the
    /// stream again once its server answers (never a reason to give up). mpv is stopped from
    /// playing it (it then goes on to the next entry, or idles), and it fails as a file that
    /// cannot play does.
    mutating func lose(_ path: String, entry: Int64, why: String, at now: Double) -> [PlaybackEffect] {
        stillSince = now
        lastPosition = nil
        entries.removeAll { $0.id == entry }
        var out: [PlaybackEffect] = [.event(.stalled(named(path))), .mpv(.remove(entry: entry, evenIfPlaying: true))]
        if watchedSource != nil {
            watchedSource = nil
            out.append(.watchSource(nil))
        }
        return out + failed(path, entry: entry, why: why, stamp: "", at: now)
    }

    // MARK: - The item's shape

    /// mpv's picture size, once it knows it (every 50 ms, 2 s at most: an audio file has none, and
    /// the mask then stays).
    mutating func shapeSampled(_ shape: ContentShape?, at now: Double) -> [PlaybackEffect] {
        guard let item = shapeFor, item == current else { return [] }
        if let shape {
            shapeFor = nil
            return [.event(.shape(shape))]
        }
        shapeAttempts += 1
        guard shapeAttempts < 40 else {
            shapeFor = nil
            return [.event(.shape(.unknown))]
        }
        shapeAt = now + 0.05
        return []
    }

    // MARK: - Layout, turn, overlays

    /// Applies the interface orientation the policy decided. In the `surface` strategy the video
    /// (and its overlays) turn by the orientation's clockwise angle on top of the file's own
    /// rotation metadata; in the `interface` strategy the output turns and the video shows by its
    /// metadata alone, so nothing is turned twice.
    mutating func apply(
        _ o: InterfaceOrientation, strategy: AppliedStrategy, layout: PlayerLayout?,
        panel: InterfaceOrientation = .portrait
    ) -> [PlaybackEffect] {
        interface = o
        self.strategy = strategy
        self.panel = panel
        if let layout { self.layout = layout }
        var out: [PlaybackEffect] = []
        if rotateByFilter {
            if rotateFilter { out.append(.mpv(.command(["vf", "remove", "@upright-rotate"]))) }
            let filter: String? =
                switch surfaceAngle {
                case 90: "transpose=clock"
                case 180: "hflip,vflip"
                case 270: "transpose=cclock"
                default: nil
                }
            rotateFilter = filter != nil
            if let filter { out.append(.mpv(.command(["vf", "add", "@upright-rotate:lavfi=[\(filter)]"]))) }
        } else {
            out.append(.mpv(.set("video-rotate", .int(Int64(surfaceAngle)))))
        }
        return out + applyLayout()
    }

    /// Inline keeps the lower part of a portrait screen for the overlays; with the output turned
    /// (interface strategy) or the video turned (surface), "portrait" is the viewer's portrait.
    mutating func applyLayout() -> [PlaybackEffect] {
        // A wall's tile fills its screen: no margin below it.
        let bottom =
            layout == .inline && interface.isPortrait && settings.wall == nil ? settings.inlineBottomMargin : 0
        // The margin lies on the panel edge that is the viewer's bottom.
        let sides: [(String, Int)] = [("top", 180), ("bottom", 0), ("left", 90), ("right", 270)]
        let margins = sides.map { side, angle in ("video-margin-ratio-\(side)", surfaceAngle == angle ? bottom : 0) }
        // A presentation places its own video (its region's margins).
        return (presenting ? [] : place(margins + placeTile())) + drawOverlays()
    }

    /// The placement properties among `values` whose value mpv does not have yet, as sets.
    mutating func place(_ values: [(String, Double)]) -> [PlaybackEffect] {
        values.compactMap { name, value in
            guard sentPlacement[name] != value else { return nil }
            sentPlacement[name] = value
            return .mpv(.set(name, .double(value)))
        }
    }

    /// A wall's tile: zoom and pan for the window and the picture now (nothing until both are
    /// known), the wall as a viewer sees it in the interface orientation now.
    func placeTile() -> [(String, Double)] {
        guard let wall = settings.wall,
            let p = wall.seen(in: interface).placement(window: osd, video: videoSize, surfaceAngle: surfaceAngle)
        else { return [] }
        return [("video-zoom", p.zoom), ("video-pan-x", p.panX), ("video-pan-y", p.panY)]
    }

    /// How to accept the rotate suggestion: its key when one is bound, else the command.
    private var acceptHint: String {
        settings.hotkeys[.acceptSuggestion]?.first.map { "Press \($0) to accept" } ?? "(upright ctl accept-suggestion)"
    }

    /// The overlays' canvas: the OSD's size, turned with the picture in the `surface` strategy.
    var overlayLayout: OverlayLayout { OverlayLayout(width: osd.width, height: osd.height, angle: surfaceAngle) }

    /// The overlays as mpv should show them: each level whose text or size changed is sent again.
    mutating func drawOverlays() -> [PlaybackEffect] {
        guard startDeadline == nil else {
            overlaysWaiting = true
            return []
        }
        let l = overlayLayout
        let viewer = l.viewerSize
        let size = max(16, min(viewer.width, viewer.height) / 24)
        let (w, h, s) = (Double(viewer.width), Double(viewer.height), Double(size))
        var texts: [OverlayLevel: String] = [:]
        if !overlaysHidden {
            let status = overlays.statusLine
            if !status.isEmpty { texts[.status] = l.text(status, x: w / 2, y: s, size: size) }
            if let o = overlays.suggestion {
                texts[.suggestion] = l.text("Turn to \(o)? " + acceptHint, x: w / 2, y: h - s * 3, size: size)
            }
            if let m = overlays.message { texts[.message] = l.text(m, x: w / 2, y: h / 2, size: size) }
        }
        texts[.touch] = touchCheckText(l, size: size)
        var out: [PlaybackEffect] = []
        for level in OverlayLevel.allCases {
            let text = texts[level] ?? ""
            let sent = text.isEmpty ? "" : "\(l.width)x\(l.height) \(text)"
            guard sentOverlays[level, default: ""] != sent else { continue }
            let id = String(level.rawValue)
            let command = ["osd-overlay", id, text.isEmpty ? "none" : "ass-events", text, String(l.width)]
            out.append(.mpv(.command(command + [String(l.height), id])))
            sentOverlays[level] = sent
        }
        return out
    }

    /// The item's first frame is on screen (or it failed, or a second passed): waiting overlays are drawn.
    mutating func itemStarted() -> [PlaybackEffect] {
        startDeadline = nil
        if firstFrameShown { windowSized = true }
        guard overlaysWaiting else { return [] }
        overlaysWaiting = false
        return drawOverlays()
    }
}
