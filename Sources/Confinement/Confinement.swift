import CLandlock
import CSeccomp
import Foundation
import Glibc

/// What a confined process may reach of the file system: everything else is refused by Landlock
/// (`EACCES`) once ``Confinement/apply(_:)`` has run.
public struct ConfinementPolicy: Sendable, Hashable {
    /// Read (files and directories) and run beneath these.
    public var readable: [String]
    /// Read, write, create and remove beneath these.
    public var writable: [String]
    /// Device nodes (or directories of them) opened for reading and writing, with their ioctls.
    public var devices: [String]

    public init(readable: [String], writable: [String], devices: [String]) {
        (self.readable, self.writable, self.devices) = (readable, writable, devices)
    }

    /// The devices a player needs: the GPU (`/dev/dri`), sound (`/dev/snd`), the buffers video
    /// decoders share (`/dev/dma_heap`), the memory-to-memory codecs among the Video4Linux nodes
    /// (a Raspberry Pi's decoders: never a camera), and the harmless ones (`null`, `zero`,
    /// `full`, `random`, `urandom`, and `/dev/shm`). Never an input device, a terminal, CEC or an
    /// accelerometer.
    public static func playerDevices(sysfs: String = "/sys/class/video4linux") -> [String] {
        var devices = ["/dev/dri", "/dev/snd", "/dev/dma_heap", "/dev/shm"]
        devices += ["null", "zero", "full", "random", "urandom"].map { "/dev/" + $0 }
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        for node in nodes.sorted() where node.hasPrefix("video") {
            let name = (try? String(contentsOfFile: "\(sysfs)/\(node)/name", encoding: .utf8))?.lowercased() ?? ""
            if ["codec", "decode", "rpivid", "hevc", "m2m", "isp"].contains(where: name.contains) {
                devices.append("/dev/" + node)
            }
        }
        return devices
    }

    /// Everything at the top of the file system but `/dev` (so `/usr`, `/etc`, `/home`, `/media`,
    /// `/proc`, `/sys`, `/run`, `/tmp`, …): media may be anywhere, devices only where named.
    public static func everythingButDevices(root: String = "/") -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return entries.sorted().filter { $0 != "dev" }.map { root == "/" ? "/" + $0 : root + "/" + $0 }
    }

    /// mpv's process: it reads anything but devices, opens the player's devices, and writes only
    /// beneath `writable` (its cache, Upright's runtime directory for screenshots, its log places).
    public static func player(writable: [String]) -> ConfinementPolicy {
        ConfinementPolicy(readable: everythingButDevices(), writable: writable, devices: playerDevices())
    }
}

/// How a process was confined, as its log says it.
public struct ConfinementReport: Sendable, Hashable, CustomStringConvertible {
    /// `no_new_privs` is set.
    public var noNewPrivileges = false
    /// The seccomp filter is loaded.
    public var seccomp = false
    /// The Landlock ABI the rules were made for; `nil` when Landlock confines nothing.
    public var landlock: Int?
    /// What could not be done, each with why.
    public var problems: [String] = []

    public init() {}

    public var description: String {
        var parts: [String] = []
        if noNewPrivileges { parts.append("no_new_privs") }
        if seccomp { parts.append("a seccomp filter") }
        if let landlock { parts.append("Landlock (ABI \(landlock))") }
        let confined = parts.isEmpty ? "not confined" : "confined by " + parts.joined(separator: ", ")
        return problems.isEmpty ? confined : confined + "; " + problems.joined(separator: "; ")
    }
}

/// Confines the calling process, for good: `no_new_privs`, then Landlock's file-system rules, then a
/// seccomp filter. Unprivileged, and set by the process on itself, so that it holds under a
/// systemd unit and when a person runs Upright from a shell alike. Call it while the process has
/// one thread: Landlock confines the calling thread and those it starts later (the seccomp filter
/// is synchronised to every thread).
public enum Confinement {
    public static func apply(_ policy: ConfinementPolicy) -> ConfinementReport {
        var report = ConfinementReport()
        if upright_no_new_privs() == 0 {
            report.noNewPrivileges = true
        } else {
            report.problems.append("no_new_privs: \(String(cString: strerror(errno)))")
        }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 1
        if threads > 1 { report.problems.append("\(threads) threads ran already; Landlock confines this one only") }
        switch Landlock.restrict(policy) {
        case .success(let abi): report.landlock = abi
        case .failure(let why): report.problems.append("Landlock: \(why)")
        }
        switch SystemCallFilter.load() {
        case .success: report.seccomp = true
        case .failure(let why): report.problems.append("seccomp: \(why)")
        }
        return report
    }
}

/// Why one step of the confinement failed, worded for the log.
struct ConfinementFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
    /// `call` failed with the errno `code` (as libseccomp returns them, negated, or errno itself).
    init(_ call: String, errno code: Int32) { description = "\(call): \(String(cString: strerror(abs(code))))" }
}
