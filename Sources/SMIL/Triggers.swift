/// What a person or a system can do to a presentation while it plays: press a key its
/// `accesskey(k)` values wait for, tap or click an element whose `activateEvent` is waited for,
/// or send a named notification (`notify(name)`).
extension SMILDocument {
    /// Every event some `begin` or `end` waits for.
    public var awaitedEvents: Set<TimeValue.Event> {
        var events: Set<TimeValue.Event> = []
        for node in nodes {
            for case .event(let e, _) in (node.timing.begin ?? []) + node.timing.end { events.insert(e) }
        }
        return events
    }

    /// The keys some `begin` or `end` waits for (`accesskey(w)`: `w`), sorted.
    public var accessKeys: [String] {
        awaitedEvents.compactMap { if case .accesskey(let k) = $0 { k } else { nil } }.sorted()
    }

    /// Whether some `begin` or `end` waits for an element to be tapped or clicked.
    public var waitsForActivation: Bool {
        awaitedEvents.contains { if case .element(_, "activateEvent") = $0 { true } else { false } }
    }

    /// The media node shown at (`x`, `y`) of the window: of the slots whose zone holds the point,
    /// the one drawn on top (``ZonePlan``'s order) that shows something.
    public func node(at x: Double, _ y: Double, on canvas: Canvas, shown: [Slot: Shown]) -> Int? {
        let plan = ZonePlan(self)
        let slots = shown.keys.sorted { (plan.ids[$0] ?? 0) > (plan.ids[$1] ?? 0) }
        for slot in slots {
            guard let s = shown[slot], let z = zone(slot, on: canvas) else { continue }
            let inside =
                x >= Double(z.x) && x < Double(z.x + z.width) && y >= Double(z.y) && y < Double(z.y + z.height)
            if inside { return s.node }
        }
        return nil
    }
}
