import Foundation
import UnixSocket

/// The compositor that started Upright, when it did: the packaged kiosk sessions run Upright from
/// the compositor's own configuration (sway's `exec`, cage's command). When that compositor ends,
/// its session starts the compositor again and the new one starts an Upright of its own: the old
/// one must end with its compositor, not wait for the new one (two would play).
///
/// Upright knows it was started so when the compositor is its ancestor (cage), or when the
/// environment says so with `UPRIGHT_COMPOSITOR_SESSION=1` (sway starts its clients through a
/// double fork, so they are not its children; the packaged sessions set it).
public struct StartingCompositor: Sendable, Hashable {
    public let pid: Int32
    public let name: String

    /// The variable that says the compositor started Upright for a session of its own.
    public static let variable = "UPRIGHT_COMPOSITOR_SESSION"

    /// The process listening on the Wayland socket that `environment` names, when it started
    /// this process; `nil` otherwise (a compositor that Upright joined, or none).
    public static func find(environment: [String: String], procfs: String = "/proc") -> StartingCompositor? {
        guard let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty else { return nil }
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        let path = wayland.hasPrefix("/") ? wayland : "\(runtime)/\(wayland)"
        guard let pid = try? UnixSocket.listener(of: path), pid > 1,
            environment[variable] == "1" || ancestors(of: getpid(), procfs: procfs).contains(pid)
        else { return nil }
        let comm = (try? String(contentsOfFile: "\(procfs)/\(pid)/comm", encoding: .utf8)) ?? "the compositor"
        return StartingCompositor(pid: pid, name: comm.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether the process has ended (gone, or a zombie not yet reaped).
    public func hasEnded(procfs: String = "/proc") -> Bool {
        guard let stat = try? String(contentsOfFile: "\(procfs)/\(pid)/stat", encoding: .utf8) else { return true }
        return Self.fields(stat)?.state == "Z"
    }

    /// The parent chain of `pid`, nearest first, up to (not including) init.
    static func ancestors(of pid: Int32, procfs: String) -> [Int32] {
        var chain: [Int32] = []
        var current = pid
        while chain.count < 64,
            let stat = try? String(contentsOfFile: "\(procfs)/\(current)/stat", encoding: .utf8),
            let parent = fields(stat)?.parent, parent > 1
        {
            chain.append(parent)
            current = parent
        }
        return chain
    }

    /// The state and parent of a `/proc/PID/stat` line (the name, in parentheses, may hold spaces).
    static func fields(_ stat: String) -> (state: String, parent: Int32)? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        guard rest.count >= 2, let parent = Int32(rest[1]) else { return nil }
        return (String(rest[0]), parent)
    }
}
