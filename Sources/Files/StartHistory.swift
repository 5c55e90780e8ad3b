import Foundation

/// When `upright play` started, kept in `starts` in the state directory (the newest
/// ``kept``, one time a line, seconds since 1970): `upright health` finds a restart loop in it.
public enum StartHistory {
    public static let kept = 20

    /// The starts kept in `directory`, oldest first (none when there is no file, or it cannot be read).
    public static func read(in directory: String) -> [Double] {
        guard let text = readText(directory + "/starts", limit: 4096) else { return [] }
        return text.split(separator: "\n").compactMap { Double($0) }.filter(\.isFinite)
    }

    /// Adds `now` to the starts in `directory` (made when missing); why it could not be kept.
    public static func record(_ now: Double, in directory: String) -> String? {
        let starts = (read(in: directory) + [now]).suffix(kept)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/starts"
        let text = starts.map { String(format: "%.3f", $0) }.joined(separator: "\n") + "\n"
        switch WholeFile.write(text, to: path, temporary: path + ".new", mode: 0o644) {
        case .create(let e), .write(let e): return "\(path): \(systemError(e)); restarts are not counted"
        case nil: return nil
        }
    }
}
