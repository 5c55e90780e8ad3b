import Blocking
import Confinement
import Foundation
import Synchronization
import UnixSocket

/// An mpv in a process of its own (`upright` started as `upright-mpv`, ``MPVHost``), spoken to
/// over a socket pair (``MPVWire``). Whatever libmpv does
/// when its window's compositor dies, or while it shuts down, stays in that process: a crash there
/// ends the event stream as a shutdown does, and its memory goes with it. The process is never
/// asked to tear libmpv down: it ends with `_exit` once told to quit or once mpv has shut down.
final class MPVRemote: Sendable {
    let pid: pid_t
    private let socket: Int32
    let events: AsyncStream<MPVEvent>
    private let continuation: AsyncStream<MPVEvent>.Continuation

    /// Seconds a call may wait for its answer before mpv's process is taken for hung and ended.
    static let answerTimeout = 20.0

    private final class Slot: Sendable {
        let answered = DispatchSemaphore(value: 0)
        let outcome = Mutex<MPVWire.Outcome?>(nil)
    }

    private struct State {
        var nextID = 1
        var pending: [Int: Slot] = [:]
        /// Told to quit, or gone: calls fail as after mpv's shutdown.
        var closed = false
    }

    private let state = Mutex(State())
    /// Serializes whole lines on the socket.
    private let writing = Mutex(())
    /// Left when the reader has seen the end and reaped the process.
    private let ended = DispatchGroup()

    /// A process started ahead (``startAhead()``), waiting for its start.
    private static let spare = Mutex<(pid: pid_t, socket: Int32)?>(nil)

    /// Starts mpv's process now, before the player needs it: it loads libmpv while the program
    /// reads its configuration and finds its display, and the first ``init(options:)`` takes it
    /// (the first frame comes sooner by that much). Failures are left for that init to report.
    static func startAhead() {
        guard let started = try? start() else { return }
        let old = spare.withLock { s in
            defer { s = started }
            return s
        }
        if let old { discard(old) }
    }

    /// Forks this process into mpv's, for `upright play`, first thing in `main` (while it has one
    /// thread: a fork is safe then): the child is already a running `upright` (no exec, no second
    /// start of the Swift runtime) and loads libmpv at once. Its crash handlers are the system's,
    /// as in a process started with `SWIFT_BACKTRACE=enable=no`.
    static func forkAhead() {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return
        }
        let pid = fork()
        if pid == 0 {
            close(pair[0])
            if pair[1] != MPVWire.descriptor {
                dup2(pair[1], MPVWire.descriptor)  // without close-on-exec, as posix_spawn leaves it
                close(pair[1])
            }
            closefrom(MPVWire.descriptor + 1)  // nothing else of this process's (its first ones)
            for crash in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP] { signal(crash, SIG_DFL) }
            MPVHost.serve()
        }
        close(pair[1])
        guard pid > 0 else {
            close(pair[0])
            return
        }
        let started = (pid: pid, socket: pair[0])
        let old = spare.withLock { s in
            defer { s = started }
            return s
        }
        if let old { discard(old) }
    }

    static var hasSpare: Bool { spare.withLock { $0 != nil } }

    /// Ends a process started ahead that no player took (the render API keeps mpv in-process).
    static func discardSpare() {
        let old = spare.withLock { s in
            defer { s = nil }
            return s
        }
        if let old { discard(old) }
    }

    private static func discard(_ process: (pid: pid_t, socket: Int32)) {
        close(process.socket)  // its input ends: it exits
        Blocking.thread(named: "upright-mpv-reaper") { _ = waitpid(process.pid, nil, 0) }
    }

    /// A new mpv process and this end of its socket pair.
    private static func start() throws(MPVError) -> (pid: pid_t, socket: Int32) {
        let executable = try Self.hostExecutable()
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw MPVError(call: "socketpair()", message: String(cString: strerror(errno)), code: -1)
        }
        defer { close(pair[1]) }
        guard let pid = Self.spawn(executable, socket: pair[1]) else {
            let reason = String(cString: strerror(errno))
            close(pair[0])
            throw MPVError(call: "starting \(executable)", message: reason, code: -1)
        }
        return (pid, pair[0])
    }

    /// Starts mpv's process (or takes the one started ahead) with `options` set before
    /// `mpv_initialize` and `calls` made after it, without waiting: the process may still be loading
    /// libmpv. ``waitStarted()`` says how the start went; every call waits for it too.
    init(
        options: [(String, String)], then calls: [MPVWire.Call] = [], confinement: ConfinementPolicy? = nil
    ) throws(MPVError) {
        let ahead = Self.spare.withLock { s in
            defer { s = nil }
            return s
        }
        let process: (pid: pid_t, socket: Int32)
        if let ahead { process = ahead } else { process = try Self.start() }
        pid = process.pid
        socket = process.socket
        (events, continuation) = AsyncStream.makeStream(of: MPVEvent.self, bufferingPolicy: .bufferingNewest(1024))
        ended.enter()
        starting.enter()
        let start = MPVWire.Start(
            options: options, environment: ProcessInfo.processInfo.environment, calls: calls, confinement: confinement)
        // A process that is gone takes nothing: the reader then finds its end before a start.
        if !UnixSocket.sendAll(socket, start.frame) { shutdown(SHUT_WR) }
        Blocking.thread(named: "upright-mpv-reader") { [self] in finish(reader: FrameReader(fd: socket)) }
    }

    /// Waits until mpv has started in its process (its options set, `mpv_initialize` and the
    /// start's calls done); throws the first of those that failed, or why the process ended first.
    func waitStarted() throws(MPVError) {
        if starting.wait(timeout: .now() + Self.startTimeout) == .timedOut {
            kill(pid, SIGKILL)
            starting.wait()
            throw MPVError(
                call: "starting mpv's process",
                message: "mpv did not start within \(Int(Self.startTimeout)) s; its process was ended", code: -3)
        }
        if let failure = startFailure.withLock({ $0 }) { throw failure }
    }

    /// Seconds mpv's process may take to load libmpv and start mpv (a cold start from a slow card).
    static let startTimeout = 60.0

    /// How the start went, once known: `nil` when it started.
    private let startFailure = Mutex<MPVError?>(nil)
    /// How the process confined itself, once started (`nil`: it was not asked to).
    var confinement: String? { confined.withLock { $0 } }
    private let confined = Mutex<String?>(nil)
    /// Left once the start's outcome is known.
    private let starting = DispatchGroup()

    private func started(_ failure: MPVError?, confined: String? = nil) {
        startFailure.withLock { $0 = failure }
        self.confined.withLock { $0 = confined }
        starting.leave()
    }

    deinit { close(socket) }

    /// Reads answers and events until the end, then fails what still waits, ends the events and reaps.
    private func finish(reader: FrameReader) {
        var reader = reader
        var known = false
        while let line = reader.next() {
            guard let message = MPVWire.Message(line) else { continue }
            switch message {
            case .reply(let id, let outcome):
                guard let slot = state.withLock({ $0.pending.removeValue(forKey: id) }) else { continue }
                slot.outcome.withLock { $0 = outcome }
                slot.answered.signal()
            case .event(let event): continuation.yield(event)
            case .started(let failure, let confined) where !known:
                known = true
                started(failure, confined: confined)
            case .started: continue
            }
        }
        if !known {
            started(MPVError(call: "starting mpv's process", message: "it ended before mpv started", code: -1))
        }
        let waiting = state.withLock { s in
            s.closed = true
            defer { s.pending = [:] }
            return Array(s.pending.values)
        }
        waiting.forEach { $0.answered.signal() }
        shutdown(SHUT_RDWR)
        let ending = reap()
        if let ending { continuation.yield(.log(prefix: "upright-mpv", level: "error", text: ending)) }
        continuation.yield(.shutdown)
        continuation.finish()
        ended.leave()
    }

    private func shutdown(_ how: Int) { _ = Glibc.shutdown(socket, Int32(how)) }

    /// Waits for the process; says how it ended when that was not an ordinary exit.
    private func reap() -> String? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }  // reaped elsewhere
        }
        let signal = status & 0x7f
        if signal != 0 { return "mpv's process (pid \(pid)) was ended by signal \(signal)" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "mpv's process (pid \(pid)) exited with status \(code)"
    }

    /// Sends `call` and waits for its outcome.
    func call(_ call: MPVWire.Call, describing description: @autoclosure () -> String) throws(MPVError)
        -> MPVWire.Outcome
    {
        // The answer's time counts from mpv's start: its process may still be loading libmpv. A
        // start that failed is thrown here, before anything is sent.
        try waitStarted()
        let slot = Slot()
        guard
            let id = state.withLock({ s -> Int? in
                guard !s.closed else { return nil }
                defer { s.nextID += 1 }
                s.pending[s.nextID] = slot
                return s.nextID
            })
        else { throw MPVError(call: description(), message: MPVError.shutDownMessage, code: -3) }
        let line = MPVWire.Request(id: id, call: call).frame
        let sent = writing.withLock { _ in UnixSocket.sendAll(socket, line) }
        if !sent { shutdown(SHUT_RDWR) }
        if slot.answered.wait(timeout: .now() + Self.answerTimeout) == .timedOut {
            kill(pid, SIGKILL)
            throw MPVError(
                call: description(),
                message: "mpv did not answer within \(Int(Self.answerTimeout)) s; its process was ended", code: -3)
        }
        guard let outcome = slot.outcome.withLock({ $0 }) else {
            throw MPVError(call: description(), message: MPVError.shutDownMessage, code: -3)
        }
        if case .failed(let error) = outcome { throw error }
        return outcome
    }

    /// Tells mpv's process to end; from now on calls fail as after mpv's shutdown.
    func quit() {
        let first = state.withLock { s in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        let line = MPVWire.Request(id: 0, call: .quit).frame
        if !writing.withLock({ _ in UnixSocket.sendAll(socket, line) }) { shutdown(SHUT_RDWR) }
    }

    /// Blocks until the process has ended and been reaped, or `deadline`; then ends it by force.
    func waitEnded(until deadline: DispatchTime) -> Bool {
        if ended.wait(timeout: deadline) == .success { return true }
        kill(pid, SIGKILL)
        return ended.wait(timeout: .now() + 2) == .success
    }

    // MARK: - The process

    /// The program that serves mpv's process: this one when it can (``MPVHost/servedByThisProgram()``),
    /// else `upright` beside this program's executable (a test run, a benchmark), else where the
    /// package installs it.
    static func hostExecutable() throws(MPVError) -> String {
        if MPVHost.byThisProgram.load(ordering: .relaxed) { return "/proc/self/exe" }
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let candidates = [(own as NSString).deletingLastPathComponent + "/upright", "/usr/bin/upright"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw MPVError(
                call: "starting mpv's process",
                message: "upright was found neither at \(candidates.joined(separator: " nor at "))", code: -1)
        }
        return found
    }

    /// Starts `path` with `socket` as its descriptor ``MPVWire/descriptor`` and no other of this
    /// process's but its standard output and error (mpv may write there).
    private static func spawn(_ path: String, socket: Int32) -> pid_t? {
        // Swift's backtracer would hold a crashed mpv for seconds while it symbolicates: the
        // player restarts mpv at once instead, and the service manager keeps the core dump.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        do {
            return try spawnProgram(
                path, arguments: [MPVHost.name, MPVHost.argument], environment: environment, passing: socket)
        } catch {
            errno = error.code
            return nil
        }
    }
}
