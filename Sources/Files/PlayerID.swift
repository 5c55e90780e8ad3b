import Foundation

/// The player's own UUID, kept in `player-id` in its state directory: made (at random) the first
/// time, read every time after, so that a CMS knows the screen across restarts and updates.
public enum PlayerID {
    /// Where the player keeps its state: systemd's `StateDirectory=` (`$STATE_DIRECTORY`), else
    /// `$XDG_STATE_HOME/upright`, else `~/.local/state/upright`.
    public static func stateDirectory(_ environment: [String: String]) -> String {
        if let d = environment["STATE_DIRECTORY"]?.split(separator: ":").first { return String(d) }
        if let x = environment["XDG_STATE_HOME"], x.hasPrefix("/") { return x + "/upright" }
        return NSHomeDirectory() + "/.local/state/upright"
    }

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
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        switch WholeFile.write(made + "\n", to: path, temporary: path + ".new", mode: 0o644) {
        case .create(let e), .write(let e):
            return (made, "\(path): \(systemError(e)); the player's UUID holds for this run only")
        case nil: return (made, nil)
        }
    }
}
