public import Foundation
import Glibc

/// A process that is not this one's child, known by its pid and its start time: a signal reaches
/// it only while that pid is still the same process. A compositor killed by a test is reaped by
/// init, and its pid can be another test's process a moment later (a browser, a broker): a
/// signal by pid alone would end that one.
public struct ProcessIdentity: Sendable, Hashable {
    public let pid: Int32
    let started: String?

    public init(_ pid: Int32) {
        self.pid = pid
        started = Self.startTime(pid)
    }

    /// Field 22 of `/proc/PID/stat`: the start time in clock ticks since boot.
    static func startTime(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }

    /// Whether the pid is still this process (a zombie included).
    public var isSame: Bool { started != nil && Self.startTime(pid) == started }

    /// Whether it is still this process and not a zombie.
    public var isRunning: Bool {
        guard isSame, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
            return false
        }
        return !(stat.split(separator: ")").last?.hasPrefix(" Z") ?? true)
    }

    /// Sends `signal` when the pid is still this process; whether it was sent.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        guard isSame else { return false }
        return kill(pid, signal) == 0
    }
}

extension Process {
    /// Sends `signal` while the process runs. Foundation reaps a child as soon as it ends, and its
    /// pid may then be another test's process: a `kill` by pid after the end would reach that one.
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }
}
