extension Presentation {
    /// The slot a media node shows in.
    func slot(of m: SMILDocument.Media) -> Slot {
        if m.kind == .audio { return .audio }
        return m.region.map(Slot.region) ?? .root
    }

    /// What each slot shows now: of the media nodes active, paused or frozen there, an active
    /// one before a paused one before a frozen one, and the latest begun before the earlier
    /// (document order last among equals). One node a slot, always.
    func projection() -> [Slot: Shown] {
        var best: [Slot: (rank: (Int, Double, Int), shown: Shown)] = [:]
        for i in live(showing: true) {
            guard case .media(let m) = document.nodes[i].kind else { continue }
            let s = states[i]
            guard s.phase == .active || s.phase == .paused || s.phase == .frozen else { continue }
            let rank = (s.phase == .active ? 2 : s.phase == .paused ? 1 : 0, s.iterationBegin, i)
            let slot = slot(of: m)
            if let current = best[slot], current.rank > rank { continue }
            let position = m.isContinuous ? max(0, now - s.iterationBegin) : 0
            best[slot] = (
                rank, Shown(node: i, serial: s.serial, media: m, held: s.phase != .active, position: position)
            )
        }
        return best.mapValues(\.shown)
    }

    /// The effects that take the slots from what they showed to the projection: a new node (or
    /// a new interval of one) shows, an emptied slot clears, a held one holds or runs on.
    mutating func project(effects: inout [SMILEffect]) {
        let next = projection()
        for slot in Set(shown.keys).union(next.keys).sorted() {
            switch (shown[slot], next[slot]) {
            case (.some, .none): effects.append(.clear(slot))
            case (let old, .some(let new)):
                if let old, old.node == new.node, old.serial == new.serial {
                    if old.held != new.held { effects.append(.hold(slot, new.held)) }
                } else {
                    effects.append(.show(slot, new))
                }
            case (.none, .none): break
            }
        }
        shown = next
    }
}

extension Presentation {
    /// The media that will show in the next `seconds` (after what shows now), in the order it
    /// comes, each once: a copy of the presentation run ahead, its videos taken to last
    /// `assumedLength` seconds. For prefetching what comes next before its turn.
    public func upcoming(within seconds: Double, assumedLength: Double = 10) -> [SMILDocument.Media] {
        var ahead = self
        var found: [SMILDocument.Media] = []
        for case (_, .show(_, let shown)) in ahead.playOn(for: seconds, videoLength: assumedLength)
        where !found.contains(shown.media) {
            found.append(shown.media)
        }
        return found
    }

    /// The presentation run on its own from its start for `seconds`, each video taken to last
    /// `videoLength` seconds (its own end is what the player would say): each effect with its
    /// time (elapsed seconds). `upright check-smil` prints it.
    public mutating func dryRun(for seconds: Double, videoLength: Double) -> [(time: Double, effect: SMILEffect)] {
        playOn(for: seconds, videoLength: videoLength, after: start())
    }

    /// Runs on from now for `seconds` as a player would drive it: every change when it is due,
    /// and each video shown (in `first`, and from then on) ended after `videoLength` seconds,
    /// less where it showed from a position. Each effect with its time.
    mutating func playOn(for seconds: Double, videoLength: Double, after first: [SMILEffect] = [])
        -> [(time: Double, effect: SMILEffect)]
    {
        var out: [(time: Double, effect: SMILEffect)] = []
        var ends: [(time: Double, node: Int, serial: Int)] = []
        func note(_ effects: [SMILEffect], at t: Double) {
            for e in effects {
                out.append((t, e))
                if case .show(_, let shown) = e, shown.media.isContinuous {
                    ends.append((t + max(0, videoLength - shown.position), shown.node, shown.serial))
                }
            }
        }
        note(first, at: now)
        let stop = now + seconds
        for _ in 0..<Self.stepLimit {
            guard let t = [nextChange, ends.map(\.time).min()].compactMap({ $0 }).min(), t <= stop else { break }
            let moment = Moment(elapsed: t, utc: origin + t, utcOffset: utcOffset)
            if let i = ends.firstIndex(where: { $0.time <= t }) {
                let e = ends.remove(at: i)
                note(handle(.mediaEnded(node: e.node, serial: e.serial, moment)), at: t)
            } else {
                note(handle(.tick(moment)), at: t)
            }
        }
        return out
    }
}
