/// A toast: words over the picture (the overlays' message line) for ``toastSeconds`` (`[screen]
/// toast_seconds`); a new one takes the place of the one on screen, and its time starts again.
extension SessionCore {
    mutating func toast(_ words: String, at now: Double) -> [SessionEffect] {
        (toastUntil, toastWords) = (now + toastSeconds, words)
        return [.player(.overlay(.message(words))), .status("toast: \(words)")]
    }

    /// The toast's time is over: its words go.
    mutating func toastRule(at now: Double) -> [SessionEffect] {
        guard let until = toastUntil, until <= now else { return [] }
        (toastUntil, toastWords) = (nil, nil)
        return [.player(.overlay(.message(nil)))]
    }
}
