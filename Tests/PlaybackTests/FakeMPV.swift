import OrientationCore
import Playback
import Sync
import Wire

/// mpv as the core sees it, in a few lines: a playlist of entries numbered 1, 2, 3 … as they are
/// added, one entry playing at a time, each file playing for ``itemTime`` seconds (or failing at
/// once when it is missing or bad), looping, and its events queued until the driver delivers them
/// (so that they can lag behind what mpv does, as they do on a loaded machine).
struct FakeMPV {
    var playlist: [(id: Int64, path: String)] = []
    var nextID: Int64 = 1
    /// The selected entry's index, and the entry playing.
    var position: Int?
    var playing: Int64?
    var startedAt = 0.0
    /// mpv says it is idle as soon as it runs, before anything is loaded.
    var events: [MPVInput] = [.idle(active: nil)]
    /// The folder `/d` on disk: file → stamp; files in `bad` cannot be played.
    var disk: [String: String] = [:]
    var bad: Set<String> = []
    /// Files whose `loadfile` mpv refuses outright (it adds no entry): the core hears
    /// `.refused(command)`, or with `refusalSaysNoEntry` the shell's older word, `.added(entry: nil)`.
    var refusedLoads: Set<String> = []
    var refusalSaysNoEntry = false
    var itemTime = 1.0
    /// Files that play until they are cut (live streams).
    var endless: Set<String> = []
    /// Seconds such a stream takes to show its first frame (its position stands still meanwhile).
    var slowStart = 0.0
    var firstFrameAt: Double?
    /// Every entry started, with its file and the time.
    var started: [(id: Int64, path: String, at: Double)] = []
    /// The attempts that failed, in order, with the file's stamp then.
    var failedAttempts: [(id: Int64, stamp: String?)] = []

    var idle: Bool { playing == nil }
    var startPending = false
    /// Stopped: mpv says it is idle when its loop runs, unless a new playlist came meanwhile.
    var idlePending = false

    /// mpv's loop runs: a playlist just replaced starts; a stop with nothing after it idles.
    mutating func settle(now: Double) {
        if idlePending, !startPending { events.append(.idle(active: nil)) }
        idlePending = false
        guard startPending else { return }
        startPending = false
        start(at: 0, now: now)
    }

    /// Carries `command` out at `now`; a refusal is the core's next input.
    mutating func run(_ command: MPVCommand, at now: Double) -> PlaybackInput? {
        switch command {
        case .load(let path, _, _) where refusedLoads.contains(path):
            return refusalSaysNoEntry ? .added(entry: nil) : .refused(command)
        case .load(let path, let append, _):
            if !append {
                stopPlaying(error: nil)
                playlist = []
                position = nil
            }
            playlist.append((nextID, path))
            nextID += 1
            // mpv opens the new playlist in its own loop, after the commands that follow.
            if !append { startPending = true }
            return .added(entry: nextID - 1)
        case .remove(let entry, let evenIfPlaying):
            guard let i = index(of: entry) else { return nil }
            if entry == playing {
                guard evenIfPlaying else { return .removeRefused(entry: entry) }
                // mpv stops it and goes on to the entry after it, or idles.
                playlist.remove(at: i)
                stopPlaying(error: nil)
                if playlist.isEmpty {
                    position = nil
                    events.append(.idle(active: nil))
                } else {
                    start(at: i % playlist.count, now: now)
                }
                return nil
            }
            playlist.remove(at: i)
            if let p = position, p > i { position = p - 1 } else if position == i { position = nil }
        case .move(let entry, let before):
            guard let i = index(of: entry), index(of: before) != nil else { return nil }
            let e = playlist.remove(at: i)
            let selected = position.map { playlist.indices.contains($0) ? playlist[$0].id : nil } ?? nil
            playlist.insert(e, at: index(of: before)!)
            position = selected.flatMap { index(of: $0) } ?? position
        case .play(let entry):
            if let i = index(of: entry) { start(at: i, now: now) }
        case .reload:
            if let p = position { start(at: p, now: now) }
        case .step(let s):
            guard !playlist.isEmpty else { return nil }
            let p = position ?? 0
            start(at: (p + (s == .next ? 1 : playlist.count - 1)) % playlist.count, now: now)
        case .stop:
            stopPlaying(error: nil)
            playlist = []
            position = nil
            idlePending = true
        case .seek, .set, .command: break
        }
        return nil
    }

    /// Whether a guarded batch may run: mpv selected and plays `entry`.
    func plays(_ entry: Int64) -> Bool {
        playing == entry && position.map { playlist.indices.contains($0) && playlist[$0].id == entry } == true
    }

    func index(of id: Int64) -> Int? { playlist.firstIndex { $0.id == id } }

    private mutating func stopPlaying(error: String?) {
        guard let id = playing else { return }
        events.append(.endFile(entry: id, error: error))
        playing = nil
    }

    /// Starts the entry at `index`; a file that cannot play fails at once, and mpv goes on with
    /// the next (idle when every entry failed in a row).
    private mutating func start(at index: Int, now: Double, failures: Int = 0) {
        stopPlaying(error: nil)
        guard playlist.indices.contains(index) else { return }
        position = index
        let (id, path) = playlist[index]
        playing = id
        startedAt = now
        started.append((id, path, now))
        events.append(.startFile(entry: id, path: path))
        guard (path.hasPrefix("/d/") && disk[path] == nil) || bad.contains(path) else {
            if slowStart > 0, endless.contains(path) {
                events.append(.fileLoaded)
                firstFrameAt = now + slowStart
                return
            }
            events += [.fileLoaded, .playbackRestart]
            return
        }
        failedAttempts.append((id, disk[path]))
        stopPlaying(error: "loading failed")
        guard failures + 1 < playlist.count else {
            position = nil
            events.append(.idle(active: nil))
            return
        }
        start(at: (index + 1) % playlist.count, now: now, failures: failures + 1)
    }

    /// The stream playing is cut (its server went away): it ends with an error, and mpv goes on
    /// to the next entry (the same one, looped alone).
    mutating func cut(now: Double) {
        guard let p = position, playing != nil else { return }
        stopPlaying(error: "Failed to recognize file format.")
        start(at: (p + 1) % playlist.count, now: now)
    }

    /// Time passes to `now`: the item playing ends after ``itemTime`` and the next one starts.
    mutating func advance(to now: Double) {
        if let at = firstFrameAt, at <= now {
            firstFrameAt = nil
            if playing != nil { events.append(.playbackRestart) }
        }
        while let p = position, playing != nil, !endless.contains(playlist[p].path), startedAt + itemTime <= now {
            let at = startedAt + itemTime
            stopPlaying(error: nil)
            start(at: (p + 1) % playlist.count, now: at)
        }
    }

    /// The folder as the core's scan sees it: its files by name, with their stamps.
    func scan(_ entry: String = "/d") -> PlaylistScan {
        let items = disk.keys.sorted().map { PlaylistScan.Item($0, stamp: disk[$0]!) }
        let description = "\(entry): a folder with \(items.count) media files"
        return PlaylistScan(entries: [.init(entry: entry, items: items, description: description)], watch: [entry])
    }

    /// Why `path` cannot be played, as the shell would say.
    func problem(_ path: String) -> String? {
        disk[path] == nil && path.hasPrefix("/d/") ? "\(path): no such file or directory" : nil
    }
}

/// The core and a fake mpv, driven at explicit times: every input, command and event kept.
struct Drive {
    var core: PlaybackCore
    var mpv = FakeMPV()
    var t = 0.0
    var commands: [MPVCommand] = []
    var events: [PlayerEvent] = []
    var replies: [Int: [String?]] = [:]
    /// Changes of the entry playing sent since the last start or idle the core heard of.
    var changesInFlight = 0
    var mostChangesInFlight = 0
    var lastChange = -Double.infinity
    var deliver = true
    /// mpv's loop runs after each command, not after a batch (mpv in a process of its own, or a
    /// busy machine: a command appended after a failure may find mpv idle already).
    var mpvRunsBetweenCommands = false
    /// mpv's events lag, but not for ever: held back at most until time passes.
    var lagUntilTimePasses = false
    /// What the scan finds, when not the fake's folder.
    var scanned: PlaylistScan?
    /// mpv's position stands still (a stream that froze).
    var stuck = false
    /// The stream whose server the core has the shell watch (``PlaybackEffect/watchSource(_:)``).
    var watchedSource: String?
    /// The seconds of the stream mpv holds ahead (`demuxer-cache-duration`), as samples say.
    var buffered: Double?
    /// In the order they happened: files mpv started (with their stamp then), failures the core
    /// reported (with the stamp then), and idles.
    var log: [(what: String, entry: Int64, path: String, stamp: String?)] = []
    /// Everything in order, for a failing test's message.
    var trace: [String] = []
    /// A wall's group, as the shell reads it for a sample: its time is `t` plus `clock` (`nil`:
    /// not known yet), and its anchor.
    var clock: Double? = 1_000_000
    var anchor: ScheduleAnchor? = ScheduleAnchor(item: 0, at: 0)
    /// mpv's `pause` as the core last set it (a wall's held item starts paused).
    var paused = false
    /// The leader's words the core said, and the lengths it asked for.
    var announced: [ScheduleAnchor] = []
    var probed: [[String]] = []
    /// Files whose length mpv cannot read; the files loaded to start paused (held).
    var lengthless: Set<String> = []
    var held: Set<String> = []
    /// Every command with its time.
    var timed: [(at: Double, command: MPVCommand)] = []
    /// mpv's window as the shell reads it (``PlaybackEffect/samplePlacement``), and how often it was.
    var window = PlacementSample(videoOutput: "null")
    var windowReads = 0
    /// The SMIL shows the core asked for (``PlaybackEffect/present(_:)``), in order.
    var presented: [String?] = []

    init(_ settings: PlayerSettings, files: [String: String] = [:]) {
        core = PlaybackCore(settings: settings)
        mpv.disk = files
    }

    /// Hands `input` to the core now, carries its effects out on the fake, and (unless events
    /// are held back) delivers what mpv reported.
    mutating func send(_ input: PlaybackInput) {
        if input != .tick { trace.append("\(t) input \(input)") }
        perform(core.handle(input, at: t))
        if deliver { deliverAll() }
    }

    mutating func deliverOne() {
        guard !mpv.events.isEmpty else { return }
        var e = mpv.events.removeFirst()
        // The player reads mpv's idle-active as an idle event comes.
        if case .idle = e { e = .idle(active: mpv.idle) }
        trace.append("\(t) event \(e)")
        if case .startFile(let entry, _) = e {
            changesInFlight = 0
            // An item loaded to start paused starts paused.
            if let path = mpv.playlist.first(where: { $0.id == entry })?.path, held.contains(path) { paused = true }
        }
        if case .idle(active: true) = e { changesInFlight = 0 }
        perform(core.handle(.mpv(e), at: t))
    }

    mutating func deliverAll() {
        while !mpv.events.isEmpty { deliverOne() }
    }

    /// Time passes by `dt`: mpv plays on, and the core's deadlines fall due in order. With
    /// ``lagUntilTimePasses``, events held back are let through first.
    mutating func advance(_ dt: Double) {
        if lagUntilTimePasses {
            deliver = true
            deliverAll()
        }
        let end = t + dt
        while true {
            let due = core.nextDeadline.map { max($0, t) }
            let next = min(due ?? end, end, t + 0.1)
            t = next
            noteStarts { $0.advance(to: next) }
            if deliver { deliverAll() }
            if let due, due <= t { send(.tick) }
            if t >= end { break }
        }
    }

    mutating func perform(_ effects: [PlaybackEffect]) {
        var queue = effects[...]
        while let effect = queue.popFirst() {
            switch effect {
            case .mpv(let c):
                if let answer = run(c) { queue += core.handle(answer, at: t) }
                let now = t
                if mpvRunsBetweenCommands { noteStarts { $0.settle(now: now) } }
            case .guarded(let entry, let batch):
                let passed = mpv.plays(entry)
                queue += core.handle(.guarded(passed: passed), at: t)
                guard passed else { continue }
                for c in batch { if let answer = run(c) { queue += core.handle(answer, at: t) } }
            case .event(let e):
                events.append(e)
                trace.append("\(t) said \(e)")
                if case .idle = e { log.append(("idle", 0, "", nil)) }
            case .scan: queue += core.handle(.scanned(scanned ?? mpv.scan()), at: t)
            case .probe(let url):
                // A stream's server answers while its stream is not bad.
                trace.append("\(t) probe \(url)")
                queue += core.handle(.probed(url, reachable: !mpv.bad.contains(url)), at: t)
            case .watch: break
            case .present(let entry): presented.append(entry)
            case .watchSource(let url):
                trace.append("\(t) watch source \(url ?? "none")")
                watchedSource = url
            case .lookUp(let path, let entry, let error):
                // The attempt this answers: the earliest failure of that entry not answered yet.
                if let i = mpv.failedAttempts.firstIndex(where: { $0.id == entry }) {
                    log.append(("failed", entry, path, mpv.failedAttempts.remove(at: i).stamp))
                }
                let looked = PlaybackInput.lookedUp(
                    path: path, entry: entry, problem: mpv.problem(path), error: error,
                    stamp: mpv.disk[path] ?? (path.hasPrefix("/d/") ? "missing" : ""))
                queue += core.handle(looked, at: t)
            case .samplePosition:
                let position = mpv.idle ? nil : stuck || mpv.firstFrameAt != nil ? 0.0 : t - mpv.startedAt
                // A picture (the splash, the folder's PNGs) is an image to mpv: its position stands still.
                let path = mpv.playing.flatMap { id in mpv.playlist.first { $0.id == id }?.path }
                let image = path?.hasSuffix(".png") == true
                queue += core.handle(
                    .sample(PositionSample(position: position, idle: mpv.idle, image: image, buffered: buffered)), at: t
                )
            case .sampleShape:
                queue += core.handle(.shapeSample(ContentShape(width: 1920, height: 1080, rotate: 0)), at: t)
            case .stepped(let request, let playing): replies[request, default: []].append(playing)
            case .sampleGroup:
                let position = mpv.idle ? nil : t - mpv.startedAt
                let sample = GroupSample(
                    groupTime: clock.map { t + $0 }, anchor: anchor, position: position, paused: paused, idle: mpv.idle,
                    fps: 30)
                queue += core.handle(.groupSample(sample), at: t)
            case .probeLengths(let items):
                probed.append(items)
                let itemTime = mpv.itemTime
                let found = Dictionary(
                    uniqueKeysWithValues: items.map { ($0, lengthless.contains($0) ? nil : itemTime) })
                queue += core.handle(.lengthsProbed(found), at: t)
            case .samplePlacement:
                windowReads += 1
                queue += core.handle(.placementSample(window), at: t)
            case .announce(let anchor):
                // A leader's word is its group's at once (its own group core takes it).
                announced.append(anchor)
                self.anchor = anchor
            }
        }
        let now = t
        noteStarts { $0.settle(now: now) }
    }

    private mutating func run(_ c: MPVCommand) -> PlaybackInput? {
        commands.append(c)
        timed.append((t, c))
        // A seek moves the position (the fake's item is timed from its start).
        if case .command(let words) = c, words.first == "seek", words.count > 1, let p = Double(words[1]) {
            mpv.startedAt = t - p
        }
        if case .set("pause", .flag(let p)) = c { paused = p }
        if case .load(let path, _, let options) = c, options.contains("pause=yes") { held.insert(path) }
        trace.append("\(t) command \(c)")
        switch c {
        case .load(_, append: false, _), .play, .step, .reload:
            if t - lastChange >= 3 - 1e-9 { changesInFlight = 0 }  // the core waited its 3 s
            changesInFlight += 1
            lastChange = t
            mostChangesInFlight = max(mostChangesInFlight, changesInFlight)
        default: break
        }
        let now = t
        return noteStarts { $0.run(c, at: now) }
    }

    /// Runs `body` on the fake mpv, and logs the files it started meanwhile.
    private mutating func noteStarts<R>(_ body: (inout FakeMPV) -> R) -> R {
        let before = mpv.started.count
        var fake = mpv
        let result = body(&fake)
        mpv = fake
        for s in mpv.started.dropFirst(before) { log.append(("started", s.id, s.path, mpv.disk[s.path])) }
        return result
    }

    /// The files mpv started, in order, from the `from`th on.
    func played(from: Int = 0) -> [String] { mpv.started.dropFirst(from).map(\.path) }

    /// The overlay commands sent to mpv.
    var overlayCommands: [[String]] {
        commands.compactMap { if case .command(let w) = $0, w.first == "osd-overlay" { w } else { nil } }
    }
}

extension PlayerSettings {
    /// A folder `/d` looped, images 1 s, no stall watch unless asked.
    static func folder(splash: String? = nil) -> PlayerSettings {
        var s = PlayerSettings()
        s.playlist = ["/d"]
        s.splash = splash
        s.stallTimeout = nil
        return s
    }
}
