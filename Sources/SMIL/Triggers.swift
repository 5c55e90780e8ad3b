/// What a person or a system can do to a presentation while it plays: press a key its
/// `accesskey(k)` values wait for, tap or click an element whose `activateEvent` is waited for,
/// or send a named notification (`notify(name)`).
extension SMILDocument {
    /// The keys some `begin` or `end` waits for (`accesskey(w)`: `w`), sorted.
    public var accessKeys: [String] {
        var keys: Set<String> = []
        for node in nodes {
            for case .event(.accesskey(let k), _) in (node.timing.begin ?? []) + node.timing.end { keys.insert(k) }
        }
        return keys.sorted()
    }

    /// Whether some `begin` or `end` waits for an element to be tapped or clicked.
    public var waitsForActivation: Bool {
        nodes.contains { node in
            ((node.timing.begin ?? []) + node.timing.end).contains {
                if case .event(.element(_, "activateEvent"), _) = $0 { true } else { false }
            }
        }
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
