import Blocking
import Files
import Foundation
public import Settings
import Synchronization

/// What the input hub is to read, from the configuration's `[input]`, `[hotkeys]` and `[lock]`.
public struct InputPlan: Sendable, Hashable {
    /// `"auto"` (every device under ``directory`` that has a bound key) and/or device paths; any
    /// character device or FIFO that delivers `input_event` records is read.
    public var devices: [String]
    /// The key codes bound to actions (`KEY_`/`BTN_` names in `[hotkeys]`).
    public var keys: Set<UInt16>
    /// Take the devices for Upright alone (`EVIOCGRAB`), so their keys do not reach the compositor.
    public var grab: Bool
    /// Where the rotation-lock switch is read.
    public var lockSwitch: LockSwitchSetting
    /// Whether the tablet-mode switch (`SW_TABLET_MODE`) is read: from every device under
    /// ``directory`` that has it, and from the lock switch's path (a pipe there carries both).
    public var tabletMode: Bool
    /// Where `auto` looks (`/dev/input`).
    public var directory: String

    public init(
        devices: [String] = ["auto"], keys: Set<UInt16> = [], grab: Bool = false, lockSwitch: LockSwitchSetting = .none,
        tabletMode: Bool = false, directory: String = "/dev/input"
    ) {
        self.devices = devices
        self.keys = keys
        self.grab = grab
        self.lockSwitch = lockSwitch
        self.tabletMode = tabletMode
        self.directory = directory
    }

    var auto: Bool { devices.contains("auto") }
    /// The devices named by path.
    public var paths: [String] { devices.filter { $0 != "auto" } }
    /// Nothing to read: no key bound, no lock switch and no tablet-mode switch.
    public var isIdle: Bool { keys.isEmpty && lockSwitch == .none && !tabletMode }
    /// Every device under ``directory`` is looked at.
    var scansDirectory: Bool { (auto && !keys.isEmpty) || lockSwitch == .auto || tabletMode }
}

/// An input device the hub has open.
public struct InputDeviceInfo: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    /// The device's own name (`gpio-keys`), or what it is when it has none (a pipe).
    public var name: String
    /// The bound keys it has (every bound key for a pipe, which cannot be asked).
    public var keys: [String]
    /// Its rotation-lock switch or key is read.
    public var lockSwitch: Bool
    /// Its tablet-mode switch is read.
    public var tabletMode = false
    public var grabbed: Bool

    public var description: String {
        var roles = keys.isEmpty ? [] : [keys.joined(separator: ", ")]
        if lockSwitch { roles.append("rotation lock") }
        if tabletMode { roles.append("tablet mode") }
        if grabbed { roles.append("grabbed") }
        return "\(path) (\(name))" + (roles.isEmpty ? "" : ": " + roles.joined(separator: "; "))
    }
}

/// What the hub reports.
public enum InputHubEvent: Sendable, Hashable {
    /// A bound key was pressed (not released, not the driver's repeat).
    case press(UInt16, device: String)
    /// The rotation-lock switch moved, or its key was pressed; the state at opening comes first.
    case lock(LockSwitchEvent, device: String)
    /// The tablet-mode switch says tablet (true) or laptop (false); the state at opening comes first.
    case tabletMode(Bool, device: String)
    case opened(InputDeviceInfo)
    /// A device was closed: it went away, was replaced, or failed (then it is opened again).
    case closed(String, reason: String)
    /// A device cannot be opened now; it is tried again every second and whenever its directory changes.
    case problem(String, reason: String)
}

/// Reads key presses and the rotation-lock switch from Linux input devices (evdev), on a thread of
/// its own: buttons on GPIO pins (`gpio-keys`), USB keypads and keyboards, IR receivers (rc-core),
/// HDMI-CEC remotes where the kernel makes them input devices. Devices that appear are opened within
/// a second (inotify on their directory, and a rescan every second), devices that go away or fail
/// are closed and tried again; nothing here ever ends the stream but ``stop()``.
public final class InputHub: Sendable {
    public let events: AsyncStream<InputHubEvent>
    private let shared: Shared
    private let wakeWrite: Mutex<Int32>

    final class Shared: Sendable {
        let devices = Mutex<[String: InputDeviceInfo]>([:])
        let problems = Mutex<[String: String]>([:])
    }

    /// Starts reading what `plan` names (nothing at all for an idle plan).
    public init(plan: InputPlan) {
        let (events, continuation) = AsyncStream.makeStream(of: InputHubEvent.self)
        self.events = events
        let shared = Shared()
        self.shared = shared
        var fds: [Int32] = [-1, -1]
        guard !plan.isIdle, pipe(&fds) == 0 else {
            wakeWrite = Mutex(-1)
            continuation.finish()
            return
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wakeWrite = Mutex(fds[1])
        let wake = fds[0]
        Blocking.thread(named: "upright-input") {
            let loop = HubLoop(plan: plan) { event in
                switch event {
                case .opened(let info):
                    shared.devices.withLock { $0[info.path] = info }
                    shared.problems.withLock { $0[info.path] = nil }
                case .closed(let path, _): shared.devices.withLock { $0[path] = nil }
                case .problem(let path, let reason): shared.problems.withLock { $0[path] = reason }
                default: break
                }
                continuation.yield(event)
            }
            loop.run(wake: wake)
            close(wake)
            continuation.finish()
        }
    }

    /// The devices open now, by path.
    public var devices: [InputDeviceInfo] { shared.devices.withLock { $0.values.sorted { $0.path < $1.path } } }

    /// The devices that cannot be opened now, with the reason.
    public var problems: [(path: String, reason: String)] {
        shared.problems.withLock { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    /// Closes every device; the event stream finishes.
    public func stop() {
        wakeWrite.withLock { fd in
            guard fd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)
            close(fd)
            fd = -1
        }
    }

    deinit { stop() }

    /// What the hub would open now, and why it cannot open the rest, without reading anything:
    /// for `upright doctor` and `check-config`.
    public static func survey(_ plan: InputPlan) -> (
        devices: [InputDeviceInfo], problems: [(path: String, reason: String)]
    ) {
        var devices: [InputDeviceInfo] = [], problems: [(String, String)] = []
        let loop = HubLoop(plan: plan) { event in
            switch event {
            case .opened(let info): devices.append(info)
            case .problem(let path, let reason): problems.append((path, reason))
            default: break
            }
        }
        loop.reconcile(now: 0)
        loop.closeAll()
        return (devices.sorted { $0.path < $1.path }, problems)
    }
}

/// The hub's state, on its thread alone.
final class HubLoop {
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    struct Open {
        var fd: Int32
        var identity: Identity
        var pipe: Bool
        var info: InputDeviceInfo
        var pending: [UInt8] = []
    }

    let plan: InputPlan
    let emit: (InputHubEvent) -> Void
    var open: [String: Open] = [:]
    /// Devices `auto` looked at that have nothing bound, by identity (looked at again when it changes).
    var skipped: [String: Identity] = [:]
    /// The problem last reported for a path (reported again only when it changes).
    var reported: [String: String] = [:]
    /// A device that failed is opened again from this time on (seconds, monotonic).
    var retryAt: [String: Double] = [:]
    /// The devices' directories: a node that appears or goes is looked at at once.
    let folders = FolderWatch(.entries)
    var lastReconcile = -Double.infinity

    init(plan: InputPlan, emit: @escaping (InputHubEvent) -> Void) {
        self.plan = plan
        self.emit = emit
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The directories whose changes may bring or take a device.
    var directories: [String] {
        var dirs = plan.paths.map { ($0 as NSString).deletingLastPathComponent }
        if plan.scansDirectory { dirs.append(plan.directory) }
        if case .path(let p) = plan.lockSwitch { dirs.append((p as NSString).deletingLastPathComponent) }
        return Array(Set(dirs.filter { !$0.isEmpty })).sorted()
    }

    func run(wake: Int32) {
        defer { closeAll() }
        while true {
            let t = Self.now()
            if t - lastReconcile >= 1 { reconcile(now: t) }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let inotify = folders.fd
            if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let paths = open.keys.sorted()
            for p in paths { fds.append(pollfd(fd: open[p]!.fd, events: Int16(POLLIN), revents: 0)) }
            let wait = max(0, Int32((lastReconcile + 1 - Self.now()) * 1000) + 1)
            let n = poll(&fds, nfds_t(fds.count), wait)
            if n < 0, errno != EINTR { return }
            if fds[0].revents != 0 { return }
            var changed = false
            if inotify >= 0, fds[1].revents != 0 {
                _ = folders.drain()
                changed = true
            }
            let first = inotify >= 0 ? 2 : 1
            for (i, path) in paths.enumerated() where fds[first + i].revents != 0 {
                readDevice(path)
            }
            if changed { reconcile(now: Self.now()) }
        }
    }

    // MARK: - Which devices are open

    /// Opens what should be open and is not, and closes what went away or was replaced.
    func reconcile(now: Double) {
        lastReconcile = now
        folders.watch(directories, parentOfMissing: false)
        for (path, device) in open {
            guard let identity = Self.identity(path: path) else {
                closeDevice(path, reason: "it went away")
                continue
            }
            if identity != device.identity { closeDevice(path, reason: "it was replaced") }
        }
        for path in plan.paths where open[path] == nil { openDevice(path, explicit: true, now: now) }
        if case .path(let p) = plan.lockSwitch, open[p] == nil { openDevice(p, explicit: true, now: now) }
        guard plan.scansDirectory else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: plan.directory)) ?? []
        for name in names.filter({ $0.hasPrefix("event") }).sorted() {
            let path = plan.directory + "/" + name
            guard open[path] == nil else { continue }
            if let s = skipped[path], s == Self.identity(path: path) { continue }
            openDevice(path, explicit: false, now: now)
        }
    }

    func openDevice(_ path: String, explicit: Bool, now: Double) {
        if let at = retryAt[path], now < at { return }
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            report(path, Self.openProblem(errno))
            return
        }
        var st = stat()
        fstat(fd, &st)
        let identity = Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        let pipe = st.st_mode & S_IFMT == S_IFIFO
        guard pipe || st.st_mode & S_IFMT == S_IFCHR else {
            Glibc.close(fd)
            report(path, "not a character device or a FIFO")
            return
        }
        let has = pipe ? nil : Evdev.keys(fd: fd)
        let bound = has.map { plan.keys.intersection($0) } ?? plan.keys
        let switches = pipe ? nil : Evdev.switches(fd: fd)
        let lockPath: Bool = if case .path(let p) = plan.lockSwitch { p == path } else { false }
        let lock = lockPath || (plan.lockSwitch == .auto && (pipe || Evdev.hasLock(switches: switches, keys: has)))
        // A pipe cannot be asked what it has: one read for the lock switch carries the tablet's too.
        let tablet = plan.tabletMode && (pipe ? lock : switches?.contains(InputRecord.swTabletMode) == true)
        let keyed = explicit ? plan.paths.contains(path) : !bound.isEmpty
        guard keyed || lock || tablet else {
            Glibc.close(fd)
            skipped[path] = identity
            return
        }
        var grabbed = false
        if plan.grab, keyed, !pipe {
            if let e = Evdev.grab(fd: fd) {
                report(path, "cannot grab it (\(String(cString: strerror(e)))): its keys also reach the compositor")
            } else {
                grabbed = true
            }
        }
        var info = InputDeviceInfo(
            path: path, name: pipe ? "a pipe of input_event records" : (Evdev.name(fd: fd) ?? "no name"),
            keys: keyed ? bound.sorted().map(LinuxKeys.name(of:)) : [], lockSwitch: lock, grabbed: grabbed)
        info.tabletMode = tablet
        open[path] = Open(fd: fd, identity: identity, pipe: pipe, info: info)
        reported[path] = nil
        retryAt[path] = nil
        emit(.opened(info))
        if lock, !pipe, let state = Evdev.switchState(fd: fd, InputRecord.swRotateLock) {
            emit(.lock(.set(state), device: path))
        }
        if tablet, !pipe, let state = Evdev.switchState(fd: fd, InputRecord.swTabletMode) {
            emit(.tabletMode(state, device: path))
        }
    }

    static func openProblem(_ e: Int32) -> String {
        let text = String(cString: strerror(e))
        switch e {
        case EACCES, EPERM:
            return "\(text): add the user Upright runs as to the 'input' group (usermod -aG input USER)"
        case ENOENT: return "\(text); it is opened when it appears"
        default: return text
        }
    }

    func report(_ path: String, _ reason: String) {
        guard reported[path] != reason else { return }
        reported[path] = reason
        emit(.problem(path, reason: reason))
    }

    func closeDevice(_ path: String, reason: String, retryIn: Double? = nil) {
        guard let device = open.removeValue(forKey: path) else { return }
        if device.pipe {
            // What is left in a pipe belongs to the records that failed: it goes with them.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ Glibc.read(device.fd, $0.baseAddress, $0.count) }) > 0 {}
        }
        Glibc.close(device.fd)
        if let retryIn { retryAt[path] = Self.now() + retryIn }
        emit(.closed(path, reason: reason))
    }

    func closeAll() {
        for (_, device) in open { Glibc.close(device.fd) }
        open = [:]
    }

    static func identity(path: String) -> Identity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    // MARK: - Reading

    func readDevice(_ path: String) {
        guard var device = open[path] else { return }
        var buffer = [UInt8](repeating: 0, count: InputRecord.size * 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(device.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                let e = errno
                closeDevice(path, reason: e == ENODEV ? "it went away" : String(cString: strerror(e)), retryIn: 1)
                return
            }
            if n == 0 {
                if device.pipe {
                    // The writer closed the pipe: opened again at once, quietly, for the next writer.
                    Glibc.close(device.fd)
                    let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                    var st = stat()
                    if fd >= 0, fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFIFO {
                        device.fd = fd
                        device.identity = Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
                        device.pending = []
                        open[path] = device
                    } else {
                        if fd >= 0 { Glibc.close(fd) }
                        open[path] = nil
                        emit(.closed(path, reason: "it went away"))
                    }
                } else {
                    closeDevice(path, reason: "end of file", retryIn: 1)
                }
                return
            }
            if !device.pipe, n % InputRecord.size != 0 {
                closeDevice(path, reason: "a short read of \(n) bytes: not input_event records", retryIn: 1)
                return
            }
            device.pending += buffer[0..<n]
            let whole = device.pending.count / InputRecord.size * InputRecord.size
            let records = InputRecord.decode(device.pending[0..<whole])
            device.pending.removeFirst(whole)
            open[path] = device
            if let bad = records.first(where: { $0.type > InputRecord.evMax }) {
                closeDevice(path, reason: "not input_event records (an event of type \(bad.type))", retryIn: 1)
                return
            }
            for r in records { handle(r, from: device) }
        }
    }

    func handle(_ r: InputRecord, from device: Open) {
        if device.info.lockSwitch, let e = r.lockEvent { emit(.lock(e, device: device.info.path)) }
        if device.info.tabletMode, let tablet = r.tabletMode { emit(.tabletMode(tablet, device: device.info.path)) }
        guard r.type == InputRecord.evKey, r.value == InputRecord.pressed, !device.info.keys.isEmpty,
            plan.keys.contains(r.code)
        else { return }
        emit(.press(r.code, device: device.info.path))
    }
}

extension InputSettings {
    /// Why the device at `path` cannot be opened for reading now, in words that say what to do;
    /// `nil` when it can.
    /// (It does not open the device: a FIFO's writer would take that for its reader.)
    public static func openProblem(_ path: String) -> String? {
        access(path, R_OK) == 0 ? nil : HubLoop.openProblem(errno)
    }
}
