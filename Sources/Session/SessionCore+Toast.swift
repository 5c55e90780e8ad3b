/// A toast: words over the picture (the overlays' message line) for ``toastSeconds``; a new one
/// takes the place of the one on screen, and its time starts again.
extension SessionCore {
    /// How long a toast stays on screen, in seconds.
    public static let toastSeconds = 10.0

    mutating func toast(_ words: String, at now: Double) -> [SessionEffect] {
        (toastUntil, toastWords) = (now + Self.toastSeconds, words)
        return [.player(.overlay(.message(words))), .status("toast: \(words)")]
    }

    /// The toast's time is over: its words go.
    mutating func toastRule(at now: Double) -> [SessionEffect] {
        guard let until = toastUntil, until <= now else { return [] }
        (toastUntil, toastWords) = (nil, nil)
        return [.player(.overlay(.message(nil)))]
    }
}
