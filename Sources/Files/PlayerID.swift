import Foundation
import Glibc

/// The player's own UUID, kept in `player-id` in its state directory: made (at random) the first
/// time, read every time after, so that a CMS knows the screen across restarts and updates.
public enum PlayerID {
    /// The UUID in `directory/player-id`, made there (with the directory) when it is missing or
    /// not a UUID; or why it cannot be kept (then a UUID for this run only is returned beside it).
    public static func load(in directory: String) -> (uuid: String, problem: String?) {
        let path = directory + "/player-id"
        if let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8),
            let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return (uuid.uuidString.lowercased(), nil)
        }
        let made = UUID().uuidString.lowercased()
        if let reason = write(made + "\n", to: path, in: directory) {
            return (made, "\(path): \(reason); the player's UUID holds for this run only")
        }
        return (made, nil)
    }

    /// Writes `text` to `path` whole or not at all (a file beside it, then renamed); why not.
    static func write(_ text: String, to path: String, in directory: String) -> String? {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return systemError(errno) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let failure = written == bytes.count && fsync(fd) == 0 ? nil : systemError(errno)
        close(fd)
        guard failure == nil, rename(temporary, path) == 0 else {
            let reason = failure ?? systemError(errno)
            unlink(temporary)
            return reason
        }
        return nil
    }
}
