import OrientationCore

/// The playlist's rules: what plays, in what order, what changes it, what failed.
extension PlaybackCore {
    // MARK: - Starting

    /// Loads the playlist: the built-in test pattern when none is configured, else after a look at
    /// the disk (``scanned(_:at:)`` loads it).
    mutating func start(at now: Double) -> [PlaybackEffect] {
        if presenting { return drawOverlays() }
        if stallCheckAt == nil, settings.stallTimeout != nil || settings.playlist.contains(where: { isLive($0) }) {
            stallCheckAt = now + 1
        }
        stillSince = now
        guard !settings.playlist.isEmpty else { return change(.load([testPattern]), at: now) }
        return look(.start)
    }

    /// A new mpv (the old one ended on its own): it numbers its entries from 1 again and has drawn
    /// nothing. A clip that played has ended; the loop starts again from the entry that played.
    /// What failed is tried again: the old mpv's failures may have been its display's.
    mutating func restarted(at now: Double) -> [PlaybackEffect] {
        (failed, lastFailure, retryAt) = ([:], nil, nil)
        entries = []
        (adding, guards) = ([], [])
        sentOverlays = [:]
        sentPlacement = [:]
        rotateFilter = false
        var out = itemStarted()
        windowSized = false
        if case .step(_, let request)? = inFlight?.change { out.append(.stepped(request: request, playing: current)) }
        (inFlight, changes) = (nil, changes.filter { if case .step = $0 { true } else { false } })
        if presenting { return out + apply(interface, strategy: strategy, layout: layout, panel: panel) }
        if clipState != nil {
            clipState = nil
            out.append(.event(.clipEnded))
        }
        // The old mpv's words on what could not play go with it.
        if let shown = overlays.message, shown == nothingMessage || shown == failure?.text { out += setMessage(nil) }
        failure = nil
        if items.isEmpty, !settings.playlist.isEmpty {
            // Nothing could play (in the old mpv): the playlist from the disk again, from its start.
            out += look(.start)
        } else {
            let resume = current.flatMap { items.firstIndex(of: $0) }
            out += change(.load(settings.playlist.isEmpty ? [testPattern] : items), at: now)
            if let resume, resume > 0, resume < items.count { out += change(.playItem(items[resume]), at: now) }
        }
        return out + apply(interface, strategy: strategy, layout: layout, panel: panel)
    }

    /// Another shows what plays (`on`), or the playlist plays again from its start. The core's
    /// playlist is forgotten either way; what it was waiting for is answered.
    mutating func present(_ on: Bool, at now: Double) -> [PlaybackEffect] {
        guard on != presenting else { return [] }
        presenting = on
        var out: [PlaybackEffect] = []
        if case .step(_, let request)? = inFlight?.change { out.append(.stepped(request: request, playing: nil)) }
        for case .step(_, let request) in changes { out.append(.stepped(request: request, playing: nil)) }
        (inFlight, changes, adding, guards) = (nil, [], [], [])
        (entries, items, current, currentEntry, unstarted) = ([], [], nil, nil, [])
        (stallCheckAt, liveEndAt, lostStream, probeAt, retryAt) = (nil, nil, nil, nil, nil)
        startDeadline = nil
        sentPlacement = [:]
        guard on else { return out + start(at: now) }
        // mpv 0.35 makes a window for `force-window` only as it goes idle (set while it is idle,
        // it makes none): set before the stop, mpv keeps its window for a presentation that
        // loads nothing into it (pictures, brushes, words).
        return out + [.mpv(.set("force-window", .flag(true))), .mpv(.stop)] + applyLayout()
    }

    /// mpv's playlist becomes `list`, played from its start (the splash first, at the first start).
    mutating func load(_ list: [String], at now: Double) -> [PlaybackEffect] {
        items = list
        current = nil
        currentEntry = nil
        leadingSplash = nil
        let first = !startedOnce
        startedOnce = true
        var out: [PlaybackEffect] = []
        if list.isEmpty {
            entries = []
            out.append(.mpv(.stop))
        } else if first, let splash = settings.splash, !list.contains(splash) {
            // Shown for one frame, which stays until the first item's own first frame is ready.
            let options = ["image-display-duration=0", "video-latency-hacks=no"]
            out.append(.mpv(add(splash, append: false, options: options, why: .leadingSplash)))
            out += list.map { .mpv(add($0, append: true)) }
        } else {
            out += list.enumerated().map { .mpv(add($1, append: $0 > 0)) }
        }
        return out + applyLayout()
    }

    /// A live stream's own mpv options, from mpv's `low-latency` profile less what costs decoding
    /// speed (threads) or sound (the audio buffer): little is buffered, so a stream that stops
    /// ends at once (30 ms after an RTSP server went, against 850 ms without) and the slate shows.
    static let liveOptions = [
        "cache-pause=no", "demuxer-lavf-o-add=fflags=+nobuffer", "demuxer-lavf-probe-info=nostreams",
        "demuxer-lavf-analyzeduration=0.1", "video-latency-hacks=yes", "stream-buffer-size=4k",
    ]

    /// `loadfile` of `item` with its own options (its image duration, mute, a stream's buffering);
    /// mpv's answer names its entry.
    mutating func add(_ item: String, append: Bool, options extra: [String]? = nil, why: Adding = .item) -> MPVCommand {
        var pairs: [String] = []
        if let extra {
            pairs = extra
        } else {
            // mpv 0.35 shows an image for one frame only with video-latency-hacks (which the turns
            // want for video): off for images, so their display duration holds.
            if MediaFiles.isImage(item) { pairs.append("video-latency-hacks=no") }
            if let d = options(of: item)?.duration { pairs.append("image-display-duration=\(d)") }
            if let m = options(of: item)?.mute { pairs.append("mute=\(m ? "yes" : "no")") }
            if isLive(item), let latency = options(of: item)?.latency {
                // Played `latency` behind: mpv buffers that much before it starts, and the speed
                // holds it (``PlaybackCore/holdLatency(_:)``); the file's own speed goes with it.
                pairs +=
                    Self.liveOptions.filter { !$0.hasPrefix("cache-pause=") } + [
                        "cache=yes", "cache-pause=yes", "cache-pause-initial=yes", "cache-pause-wait=\(latency)",
                        "speed=1",
                    ]
            } else if isLive(item) {
                pairs += Self.liveOptions
                // HLS from its newest segment (not the third from the end): one segment is held,
                // not three, when the server goes.
                if item.lowercased().split(separator: "?").first?.hasSuffix(".m3u8") == true {
                    pairs.append("demuxer-lavf-o-add=live_start_index=-1")
                }
            }
        }
        // An item the configuration does not name itself (a folder's, a stick's, a remote list's, a
        // cached download) opens nothing further: a "video" that is really a playlist or an EDL
        // would name local files.
        if why == .item, !settings.playlist.contains(item) { pairs.append("access-references=no") }
        // A wall's item or clip waits for its instant, opened and showing its first picture.
        if settings.holdStarts, why == .item || why == .clip, !isLive(item) { pairs.append("pause=yes") }
        if !append { entries = [] }
        adding.append((item, why))
        return .load(item, append: append, options: pairs)
    }

    /// A command mpv refused: a `loadfile` added no entry (the next one asked for is not this);
    /// any other changes nothing here.
    mutating func refused(_ command: MPVCommand) -> [PlaybackEffect] {
        guard case .load = command else { return [] }
        return added(nil)
    }

    /// mpv added the entry asked for first: it is known by its id from now on.
    mutating func added(_ entry: Int64?) -> [PlaybackEffect] {
        guard !adding.isEmpty else { return [] }
        let (path, why) = adding.removeFirst()
        guard let entry else { return [] }
        entries.append((entry, path))
        paths[entry] = path
        forgetOldPaths(newest: entry)
        switch why {
        case .item:
            unstarted.insert(entry)
            return []
        case .leadingSplash:
            leadingSplash = entry
            return []
        case .clip: return clipAdded(entry)
        }
    }

    /// The files of entries long gone are forgotten (their late events name them by mpv's word
    /// then): a playlist that changes for months keeps the map small.
    mutating func forgetOldPaths(newest: Int64) {
        guard paths.count > 2 * Self.pathsKept else { return }
        let kept = Set(entries.map(\.id) + [currentEntry].compactMap { $0 })
        paths = paths.filter { kept.contains($0.key) || $0.key > newest - Int64(Self.pathsKept) }
    }

    /// How many of the latest entries' files are kept besides those in the playlist.
    public static let pathsKept = 256

    /// The splash that led the playlist leaves it.
    /// Wherever it is, even playing (mpv looped back to it): mpv then goes on to the next entry.
    mutating func dropLeadingSplash(_ splash: Int64) -> [PlaybackEffect] {
        leadingSplash = nil
        droppedSplash = splash
        entries.removeAll { $0.id == splash }
        return [.mpv(.remove(entry: splash, evenIfPlaying: true))]
    }

    /// Removes mpv's entries `ids` (the model at once; the shell by index).
    mutating func remove(_ ids: [Int64]) -> [MPVCommand] {
        entries.removeAll { ids.contains($0.id) }
        return ids.map { .remove(entry: $0) }
    }

    // MARK: - Looking at the disk

    mutating func look(_ purpose: ScanPurpose) -> [PlaybackEffect] {
        guard !presenting else { return [] }
        // A start wins over a refresh asked for meanwhile.
        scanFor = scanFor == .start ? .start : purpose
        return [.scan]
    }

    mutating func scanned(_ scan: PlaylistScan, at now: Double) -> [PlaybackEffect] {
        guard let purpose = scanFor, !presenting else { return [] }
        scanFor = nil
        lastScan = scan
        let fresh = made(from: scan, at: now)
        var out: [PlaybackEffect] = []
        // A remote list's refused lines, each said once (it never reaches mpv).
        for r in scan.entries.flatMap(\.refused) where !refusalsSaid.contains(r.line) {
            if refusalsSaid.count >= Self.refusalsKept { refusalsSaid.removeAll() }
            refusalsSaid.insert(r.line)
            out.append(.event(.fileFailed(r.line, reason: r.reason)))
        }
        if scan.watch != watched {
            watched = scan.watch
            out.append(.watch(scan.watch))
        }
        switch purpose {
        case .start:
            out += change(.load(fresh), at: now)
        case .refresh:
            out += refresh(fresh, at: now)
        }
        return out
    }

    /// The playlist made concrete from `scan`: a stick's files while one is there, else the
    /// configured entries whose schedule is open, less the entries that failed and have not
    /// changed since. Sets the next look: a file settling, or a schedule opening or closing.
    mutating func made(from scan: PlaylistScan, at now: Double) -> [String] {
        let (weekday, minute) = (scan.weekday, scan.minute)
        let change = settings.itemOptions.values.compactMap {
            $0.schedule?.minutesToNextChange(weekday: weekday, minute: minute)
        }.min().map { now + Double($0 * 60 - scan.second) + 0.5 }
        lookAt = [change, scan.settlesIn.map { now + $0 }].compactMap { $0 }.min()
        let found: [PlaylistScan.Item] =
            !scan.stick.isEmpty
            ? scan.stick
            : scan.entries.filter {
                options(of: $0.entry)?.schedule?.isActive(weekday: weekday, minute: minute) ?? true
            }.flatMap(\.items)
        return found.filter { item in
            guard let f = failed[item.path] else { return true }
            let retried = item.stamp.isEmpty && now - f.at >= settings.retryInterval.seconds
            if f.stamp != item.stamp || retried {
                failed[item.path] = nil
                return true
            }
            return false
        }.map(\.path)
    }

    /// Takes the playlist as now: the entry playing goes on, and what follows it is the new list
    /// from the item after it (from its start when it is gone). Idle, or the splash showing: the
    /// playlist starts again when it has something new.
    mutating func refresh(_ fresh: [String], at now: Double) -> [PlaybackEffect] {
        guard clipState == nil else { return [] }
        guard !between, current != nil || inFlight == nil else {
            refreshAtNextStart = true  // mpv goes from one entry to the next: at its start
            return []
        }
        // Idle, or the splash shown because nothing could play: a new list starts when it differs.
        guard !idle, let kept = current, let keptEntry = currentEntry, kept != slate || leadingSplash != nil
        else {
            guard Set(fresh) != Set(items) else { return [] }
            retryAt = nil
            return setMessage(nil) + change(.load(fresh), at: now)
        }
        items = fresh
        let order = fresh.firstIndex(of: kept).map { Array(fresh[($0 + 1)...] + fresh[..<$0]) } ?? fresh
        // What follows the entry playing in mpv's list, from it round to it (mpv loops).
        let at = entries.firstIndex { $0.id == keptEntry } ?? entries.endIndex
        let others = Array(entries[min(at + 1, entries.endIndex)...] + entries[..<at])
        guard others.map(\.path) != order else { return [] }
        return [guarded(keptEntry, removing: others.map(\.id), adding: order)]
    }

    /// A batch carried out only while mpv plays `entry`: its removals are taken from the model at
    /// once (and put back if mpv had moved on), its entries added when mpv names them.
    mutating func guarded(_ entry: Int64, removing ids: [Int64], adding items: [String] = []) -> PlaybackEffect {
        let removed = entries.filter { ids.contains($0.id) }
        var commands = remove(ids)
        commands += items.map { add($0, append: true) }
        guards.append((removed, items.count))
        return .guarded(entry: entry, commands)
    }

    // MARK: - Failures

    /// Entry `entry` could not be played: named in the system's words where the file is the
    /// cause, taken out of mpv's playlist until its file changes, and shown over the video.
    mutating func failed(_ path: String, entry: Int64, why: String, stamp: String, at now: Double)
        -> [PlaybackEffect]
    {
        let reason = why.hasPrefix(path + ": ") ? String(why.dropFirst(path.count + 2)) : why
        let name = Self.lastName(of: path)
        lastFailure = "\(name): \(reason)"
        if path != slate { failed[path] = (stamp, now) }
        if isLive(path) { lostStream = (path, lostStream?.path == path ? lostStream!.since : now, reason) }
        var out: [PlaybackEffect] = [.event(.fileFailed(named(path), reason: why))]
        // Every entry of that file leaves mpv's playlist (but one playing it now, and a clip).
        let gone = entries.filter {
            $0.path == path && $0.id != clipState?.entry && ($0.id == entry || $0.id != currentEntry)
        }
        out += remove(gone.map(\.id)).map { .mpv($0) }
        // Nothing but the splash that leads is left: it goes too, and mpv has nothing to play.
        if let splash = leadingSplash, entries.allSatisfy({ $0.id == splash }) { out += dropLeadingSplash(splash) }
        let text = "Cannot play \(name): \(why)"
        failure = (text, now)
        failureClearAt = nil
        return out + setMessage(text)
    }

    /// A file plays: the failure message goes, once it has been up for the settings' time.
    mutating func clearFailureMessage(at now: Double) -> [PlaybackEffect] {
        guard let failure else { return [] }
        let due = failure.shown + settings.failureMessageTime.seconds
        guard due <= now else {
            failureClearAt = due
            return []
        }
        self.failure = nil
        failureClearAt = nil
        return overlays.message == failure.text ? setMessage(nil) : []
    }

    /// mpv went idle with a playlist configured: every item failed, or the folders hold nothing
    /// ready. The message says so over the splash, and the playlist is tried again later.
    mutating func nothingToPlay(at now: Double) -> [PlaybackEffect] {
        // A playlist that played to its end (loop = false) is not "nothing to play"; nor is mpv idle
        // before the playlist was first loaded (its first idle event comes before the start).
        guard startedOnce, !settings.playlist.isEmpty, clipState == nil, lastFailure != nil || items.isEmpty
        else { return [] }
        let why =
            lastFailure.map { "the last: \($0)" }
            ?? (lastScan?.entries ?? []).map { entry in
                // Each entry by its last name: "missing.mp4: no such file or directory".
                let d = entry.description
                guard d.hasPrefix("/"), let colon = d.firstRange(of: ": ") else { return d }
                return Self.lastName(of: String(d[..<colon.lowerBound])) + d[colon.lowerBound...]
            }.joined(separator: "; ")
        if let lost = lostStream {
            // A lost stream: the slate says so while its server is asked, and the stream comes
            // back as soon as it answers.
            nothingMessage = Self.reconnecting(lost, at: now)
            var out = setMessage(nothingMessage)
            if let slate, current != slate { out += change(.splash, at: now) }
            probeAt = now + settings.liveRetry.seconds
            return out
        }
        nothingMessage = "Nothing to play (\(why)); trying again"
        var out = setMessage(nothingMessage)
        if settings.splash != nil, current != settings.splash { out += change(.splash, at: now) }
        retryAt = now + settings.retryInterval.seconds
        return out
    }

    /// What shows while nothing plays: the splash; without one, while a lost stream is asked for,
    /// ``builtInSlate`` (mpv's window stays open with the words over it: never the bare desktop).
    var slate: String? { settings.splash ?? (lostStream != nil ? Self.builtInSlate : nil) }

    /// A dark slate of mpv's own (a filter graph's colour, one frame a second: nothing to decode).
    public static let builtInSlate = "av://lavfi:color=c=0x102040:size=1280x720:rate=1"

    /// The slate's words for a lost stream: which, for how long, and why.
    static func reconnecting(_ lost: (path: String, since: Double, why: String), at now: Double) -> String {
        let seconds = Int(now - lost.since)
        return
            "Reconnecting to \(lastName(of: lost.path))… (lost \(seconds < 1 ? "just now" : "\(seconds) s ago"): \(lost.why))"
    }

    /// A lost stream's server answered (the stream is loaded again, with the rest of the
    /// playlist), or did not (asked again soon; the slate's words say for how long now).
    mutating func probed(_ path: String, reachable: Bool, at now: Double) -> [PlaybackEffect] {
        guard let lost = lostStream, lost.path == path, probeAt == nil else { return [] }
        guard reachable else {
            probeAt = now + settings.liveRetry.seconds
            nothingMessage = Self.reconnecting(lost, at: now)
            return setMessage(nothingMessage)
        }
        return retry(at: now)
    }

    /// The playlist is tried again from its start, every entry with it.
    mutating func retry(at now: Double) -> [PlaybackEffect] {
        guard clipState == nil else { return [] }
        lastFailure = nil
        failed = [:]
        probeAt = nil
        return setMessage(nil) + start(at: now)
    }

    mutating func setMessage(_ text: String?) -> [PlaybackEffect] {
        guard overlays.message != text else { return [] }
        overlays.message = text
        return drawOverlays()
    }
}
