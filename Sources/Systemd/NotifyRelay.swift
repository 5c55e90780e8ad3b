import Blocking
import Foundation
import Glibc
import Synchronization

/// Passes a command's service notifications (`READY=1`, `STATUS=`, `WATCHDOG=1`) on to the
/// service manager as this process's own.
///
/// A unit with `PAMName=` opens a login session for its main process: logind moves that process
/// into the session's scope, and every process it starts belongs to the scope alone, so systemd
/// takes their notifications for the scope's and drops them, `NotifyAccess=all` or not. Only the
/// main process (in both units) is heard. The relay is that main process: it starts the command
/// with `NOTIFY_SOCKET` naming a socket of its own, sends on what arrives there, passes the
/// signals a service receives on to the command's processes, and ends with the command's status.
///
/// File descriptors sent with a message (`FDSTORE=1`) are not passed on.
public enum NotifyRelay {
    /// The signals passed on to the command (`systemctl stop`, `kill`, a reload) and the
    /// watchdog's (SIGABRT).
    public static let passedSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGABRT]

    /// Blocks the signals the relay waits for, in this thread and in every thread it starts from
    /// now on: call it while the process has one thread (first thing in `main`), or a signal may
    /// reach a thread that does not wait for it and end the process with its default action.
    public static func blockSignals() {
        var set = signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static var signalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in passedSignals + [SIGCHLD] { sigaddset(&set, s) }
        return set
    }

    /// Runs `command` (looked up in `PATH`) and relays; returns its exit status. A command ended
    /// by a signal ends the relay by the same signal (128 + the signal is returned only when
    /// that signal does not end a process). Without a service manager (no `NOTIFY_SOCKET`), or when the relay's socket
    /// cannot be made, the command is started without a relay (then `warn` says why). Throws
    /// when the command cannot be started.
    public static func run(_ command: [String], warn: (String) -> Void) throws(NotifyRelayError) -> Int32 {
        guard let first = command.first else { throw NotifyRelayError(description: "no command to run") }
        guard let upstream = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !upstream.isEmpty else {
            return try wait(for: spawn(command, notifySocket: nil), relaying: nil)
        }
        let relay: Relay
        do {
            relay = try Relay(upstream: upstream)
        } catch {
            warn("\(error); \(first) runs without it, and the service manager hears only this process")
            return try wait(for: spawn(command, notifySocket: nil), relaying: nil)
        }
        defer { relay.remove() }
        let child = try spawn(command, notifySocket: relay.path)
        let forwarding = Thread { relay.forward() }
        forwarding.name = "upright-notify-relay"
        forwarding.start()
        return try wait(for: child, relaying: relay)
    }

    /// Waits for the command's end, passing signals on; what is still in the socket then is sent on.
    ///
    /// A signal goes to the relay's whole process group when the relay leads one (as a service's
    /// main process does): the compositor a session script starts in the foreground gets it as
    /// from a terminal, not the script alone (a shell ends on SIGTERM without passing it on). It
    /// goes to the process that last sent a notification too (Upright, which its compositor
    /// started in a session of its own). The copy the relay sends itself is recognised by its
    /// sender and dropped.
    ///
    /// The watchdog's SIGABRT goes to the notifying process alone (the one that stopped sending
    /// keep-alives: it ends with a core dump, as the unit's main process would), and the rest of
    /// the session gets SIGTERM.
    private static func wait(for child: pid_t, relaying relay: Relay?) throws(NotifyRelayError) -> Int32 {
        var set = signalSet
        let group = getpgrp() == getpid() ? 0 : child
        while true {
            var info = siginfo_t()
            let signal = sigwaitinfo(&set, &info)
            guard signal > 0 else { continue }
            if signal != SIGCHLD {
                if info._sifields._kill.si_pid == getpid() { continue }
                // Once, whichever way: the notifier in the group gets the group's copy (but for
                // the watchdog's, which is its alone).
                if let notifier = relay?.lastSender,
                    signal == SIGABRT || group != 0 || getpgid(notifier) != getpgrp()
                {
                    kill(notifier, signal)
                }
                kill(group, signal == SIGABRT ? SIGTERM : signal)
                continue
            }
            var status: Int32 = 0
            let ended = waitpid(child, &status, WNOHANG)
            guard ended == child else { continue }
            relay?.drain()
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let termination = status & 0x7f
            guard termination != 0 else { return (status >> 8) & 0xff }
            // Ended by a signal: the relay ends by the same, as the service manager would have
            // seen the command end (a SIGTERM at a stop is a clean end, an exit status 143 is not).
            relay?.remove()
            Glibc.signal(termination, SIG_DFL)
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, termination)
            kill(getpid(), termination)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            return 128 + termination
        }
    }

    /// Starts `command` with every signal at its default and none blocked, `NOTIFY_SOCKET` set to
    /// `notifySocket` (and the relay's own marks removed).
    private static func spawn(_ command: [String], notifySocket: String?) throws(NotifyRelayError) -> pid_t {
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifySocket
        do {
            return try spawnProgram(command[0], arguments: command, environment: environment, search: true)
        } catch {
            throw NotifyRelayError(description: "cannot start \(command[0]): \(error.reason)")
        }
    }

    /// The relay's socket (in a directory of its own, mode 0700) and the service manager's.
    private final class Relay: Sendable {
        let path: String
        private let directory: String
        private let socket: Int32
        private let outgoing: Int32
        private let upstream: [UInt8]

        init(upstream: String) throws(NotifyRelayError) {
            // An abstract socket's name starts with '@', written as a NUL in the address.
            var name = Array(upstream.utf8)
            if name.first == UInt8(ascii: "@") { name[0] = 0 }
            guard name.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
                throw NotifyRelayError(description: "NOTIFY_SOCKET is too long for a socket address: \(upstream)")
            }
            self.upstream = name
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init)
                ?? environment["XDG_RUNTIME_DIR"] ?? "/tmp"
            var template = Array("\(base)/upright-notify-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw NotifyRelayError(
                    description: "cannot make the notification relay's directory in \(base): \(Self.lastError)")
            }
            directory = String(cString: made)
            path = directory + "/notify"
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            outgoing = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            var on: Int32 = 1
            setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size))
            guard socket >= 0, outgoing >= 0, bound == 0 else {
                let why = Self.lastError
                remove()
                throw NotifyRelayError(description: "cannot make the notification relay's socket \(path): \(why)")
            }
        }

        private static var lastError: String { String(cString: strerror(errno)) }

        /// The process that sent the last message (its ID as the kernel gave it), other than this one.
        var lastSender: pid_t? { sender.withLock { $0 } }
        private let sender = Mutex<pid_t?>(nil)

        /// Sends on each message as it comes, until the socket is shut.
        func forward() {
            while true {
                switch receive(flags: 0) {
                case .message(let bytes): send(bytes[...])
                case .interrupted: continue
                case .none: return
                }
            }
        }

        /// Sends on what is still waiting, without waiting for more.
        func drain() {
            while case .message(let bytes) = receive(flags: Int32(MSG_DONTWAIT)) { send(bytes[...]) }
        }

        private enum Received {
            case message([UInt8])
            case interrupted
            case none
        }

        /// One message, its sender noted (SCM_CREDENTIALS: `struct ucred { pid_t pid; uid_t uid;
        /// gid_t gid; }` after the 16-byte `cmsghdr`).
        private func receive(flags: Int32) -> Received {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var control = [UInt8](repeating: 0, count: 64)
            let (n, pid) = buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { ancillary -> (Int, pid_t) in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vector in
                        var header = msghdr()
                        header.msg_iov = vector
                        header.msg_iovlen = 1
                        header.msg_control = ancillary.baseAddress
                        header.msg_controllen = ancillary.count
                        let n = recvmsg(socket, &header, flags)
                        let credentials =
                            header.msg_controllen >= 28
                            && ancillary.load(fromByteOffset: 8, as: Int32.self) == SOL_SOCKET
                            && ancillary.load(fromByteOffset: 12, as: Int32.self) == 2  // SCM_CREDENTIALS
                        return (n, credentials ? ancillary.load(fromByteOffset: 16, as: Int32.self) : 0)
                    }
                }
            }
            if n < 0, errno == EINTR { return .interrupted }
            guard n > 0 else { return .none }
            if pid > 0, pid != getpid() { sender.withLock { $0 = pid } }
            return .message(Array(buffer[..<n]))
        }

        private func send(_ message: ArraySlice<UInt8>) {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: upstream) }
            // An abstract name's length is exactly its bytes; a path's includes its NUL.
            let length = MemoryLayout<sa_family_t>.size + upstream.count + (upstream.first == 0 ? 0 : 1)
            _ = message.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(outgoing, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, socklen_t(length))
                    }
                }
            }
        }

        /// Shuts the socket (the forwarding thread ends) and removes it and its directory.
        func remove() {
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            unlink(path)
            rmdir(directory)
        }
    }
}

/// Why the relay could not start its command.
public struct NotifyRelayError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
