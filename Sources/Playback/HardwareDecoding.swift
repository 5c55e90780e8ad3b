/// mpv's hardware decoding per board: the choice `[player] hwdec = "board"` makes.
///
/// mpv's `auto-safe` decodes in software where a board's decoder needs a copy back to memory, as
/// the Raspberry Pi's do (its H.264 decoder through V4L2's memory-to-memory interface, its HEVC
/// decoder through V4L2 requests and DRM frames): 3 to 20 times the CPU, and dropped frames at
/// 4K. mpv tries each decoder of the list in order, for each codec in `hwdec-codecs`.
public enum HardwareDecoding {
    public struct Choice: Sendable, Hashable {
        /// The board, as the table names it.
        public var board: String
        /// mpv's `hwdec`.
        public var hwdec: String
        /// mpv's `hwdec-codecs`; `nil`: mpv's default.
        public var codecs: String?
    }

    /// The table, first match wins: what the device tree's model says (its start), the board, and
    /// the decoders per codec.
    public static let table: [(model: [String], choice: Choice)] = [
        (
            ["Raspberry Pi 4", "Raspberry Pi 400", "Raspberry Pi Compute Module 4"],
            Choice(board: "Raspberry Pi 4", hwdec: "drm-copy,v4l2m2m-copy", codecs: "h264,hevc")
        ),
        (
            ["Raspberry Pi 5", "Raspberry Pi 500", "Raspberry Pi Compute Module 5"],
            Choice(board: "Raspberry Pi 5", hwdec: "drm-copy", codecs: "hevc")
        ),
    ]

    /// Any other board (a PC, a NUC: VA-API, NVDEC, … where mpv knows them to be safe).
    public static let other = Choice(board: "other", hwdec: "auto-safe", codecs: nil)

    /// The choice for a device tree's model string (`/proc/device-tree/model`, NUL-terminated;
    /// `nil` where there is no device tree, as on a PC).
    public static func choice(model: String?) -> Choice {
        guard let model = model?.split(separator: "\0").first.map(String.init) else { return other }
        return table.first { $0.model.contains { model.hasPrefix($0) && isBoundary(model, after: $0) } }?.choice
            ?? other
    }

    /// "Raspberry Pi 4" is not the start of "Raspberry Pi 40…": the next character ends the name.
    private static func isBoundary(_ model: String, after prefix: String) -> Bool {
        let rest = model.dropFirst(prefix.count)
        guard let next = rest.first else { return true }
        return !next.isNumber
    }
}
