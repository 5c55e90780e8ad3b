import Blocking
import CMPV
public import Confinement
import Foundation
import Synchronization

/// An error from libmpv: the call that failed (with the property or command) and mpv's own
/// message (`mpv_error_string`).
public struct MPVError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String
    public var message: String
    public var code: Int32

    public init(call: String, message: String, code: Int32) {
        self.call = call
        self.message = message
        self.code = code
    }

    public var description: String { "\(call) failed: \(message)" }

    static let shutDownMessage = "mpv has shut down"
    /// The call came after mpv shut down (its window's compositor went away): no fault of the call.
    public var isShutDown: Bool { message == Self.shutDownMessage }

    /// Throws for a negative libmpv status code.
    static func check(_ status: Int32, _ call: @autoclosure () -> String) throws(MPVError) {
        guard status < 0 else { return }
        throw MPVError(call: call(), message: String(cString: upright_mpv_error_string(status)), code: status)
    }
}

/// A property or option value as mpv passes it.
public enum MPVValue: Sendable, Hashable {
    case string(String)
    case flag(Bool)
    case int64(Int64)
    case double(Double)
}

/// A Swift type that maps to one of mpv's value formats, for typed properties.
public protocol MPVConvertible: Sendable {
    init?(mpvValue: MPVValue)
    var mpvValue: MPVValue { get }
    /// The format to ask mpv for.
    static var mpvKind: MPVValue.Kind { get }
}

extension MPVValue {
    /// The format of a value, without the value.
    public enum Kind: Sendable, Hashable {
        case string, flag, int64, double
    }
}

extension String: MPVConvertible {
    public init?(mpvValue: MPVValue) {
        guard case .string(let s) = mpvValue else { return nil }
        self = s
    }
    public var mpvValue: MPVValue { .string(self) }
    public static var mpvKind: MPVValue.Kind { .string }
}

extension Bool: MPVConvertible {
    public init?(mpvValue: MPVValue) {
        guard case .flag(let b) = mpvValue else { return nil }
        self = b
    }
    public var mpvValue: MPVValue { .flag(self) }
    public static var mpvKind: MPVValue.Kind { .flag }
}

extension Int64: MPVConvertible {
    public init?(mpvValue: MPVValue) {
        guard case .int64(let i) = mpvValue else { return nil }
        self = i
    }
    public var mpvValue: MPVValue { .int64(self) }
    public static var mpvKind: MPVValue.Kind { .int64 }
}

extension Double: MPVConvertible {
    public init?(mpvValue: MPVValue) {
        switch mpvValue {
        case .double(let d): self = d
        case .int64(let i): self = Double(i)
        default: return nil
        }
    }
    public var mpvValue: MPVValue { .double(self) }
    public static var mpvKind: MPVValue.Kind { .double }
}

/// A typed mpv property: `MPVProperty<Int64>.videoRotate` cannot be set to a string.
public struct MPVProperty<Value: MPVConvertible>: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

extension MPVProperty where Value == Int64 {
    /// Clockwise rotation applied on top of the file's own (`video-rotate`).
    public static let videoRotate = MPVProperty("video-rotate")
    public static let osdWidth = MPVProperty("osd-width")
    public static let osdHeight = MPVProperty("osd-height")
    /// The video as decoded (`video-params/w`, `/h`) and as shown after filters (`video-out-params/...`).
    public static let videoWidth = MPVProperty("video-params/w")
    public static let videoHeight = MPVProperty("video-params/h")
    public static let videoOutWidth = MPVProperty("video-out-params/w")
    public static let videoOutHeight = MPVProperty("video-out-params/h")
    /// The file's own rotation metadata.
    public static let videoMetadataRotate = MPVProperty("video-params/rotate")
    public static let playlistCount = MPVProperty("playlist-count")
    public static let playlistPosition = MPVProperty("playlist-pos")
    /// The entry mpv plays now; it differs from `playlist-pos` while mpv goes from one entry to the next.
    public static let playlistPlayingPosition = MPVProperty("playlist-playing-pos")
}

extension MPVProperty where Value == Bool {
    public static let pause = MPVProperty("pause")
    public static let fullscreen = MPVProperty("fullscreen")
    public static let idleActive = MPVProperty("idle-active")
}

extension MPVProperty where Value == Double {
    public static let timePosition = MPVProperty("time-pos")
    public static let duration = MPVProperty("duration")
    /// The seconds of the stream held ahead of the position.
    public static let demuxerCacheDuration = MPVProperty("demuxer-cache-duration")
    /// Playback's speed (1: as recorded).
    public static let speed = MPVProperty("speed")
    /// The video's frame rate as the container says it.
    public static let containerFPS = MPVProperty("container-fps")
}

extension MPVProperty where Value == String {
    public static let path = MPVProperty("path")
    public static let mediaTitle = MPVProperty("media-title")
    public static let videoOutput = MPVProperty("current-vo")
    public static let mpvVersion = MPVProperty("mpv-version")
}

/// An event from mpv, copied out of `mpv_event` at once (its memory dies at the next wait).
public enum MPVEvent: Sendable, Hashable {
    case startFile(playlistEntry: Int64)
    case fileLoaded
    /// A file ended: `reason` is eof, stop, quit, error or redirect; `error` is mpv's message for
    /// errors; `playlistEntry` the entry's id, as in ``startFile(playlistEntry:)``.
    case endFile(reason: String, error: String?, playlistEntry: Int64)
    case playbackRestart
    case videoReconfigured
    case idle
    /// An observed property changed (`nil`: unavailable now).
    case propertyChange(name: String, value: MPVValue?)
    /// `script-message` (for example from a `keybind`) and its arguments.
    case clientMessage([String])
    case log(prefix: String, level: String, text: String)
    /// mpv is shutting down: the stream ends after this.
    case shutdown
    /// Any other event, by its mpv name.
    case other(String)
}

/// An initialized libmpv client: either in this process (`mpv_create` + `mpv_initialize`;
/// `mpv_terminate_destroy` once it has shut down), or in a process of its own (``init(options:separateProcess:)``),
/// where libmpv's crashes and leaks at its window's loss stay. Either way the same calls, the same
/// events, the same errors. Events arrive on ``events``, drained by a dedicated thread, never on
/// the cooperative pool.
// @unchecked: libmpv's client API is thread-safe (client.h: every function may be called from any
// thread, except where noted: mpv_wait_event, called only by the event thread, and the render API).
public final class MPVHandle: @unchecked Sendable {
    /// The core in this process; `nil` for one in its own process.
    let local: OpaquePointer?
    /// The core in a process of its own.
    let remote: MPVRemote?
    /// Render contexts alive on this handle; the core is destroyed only when none is left.
    let lifetime: Lifetime
    /// The events, until mpv shuts down.
    public let events: AsyncStream<MPVEvent>

    /// The core in this process, for the render API; an error for one in a process of its own.
    var handle: OpaquePointer {
        get throws(MPVError) {
            guard let local else {
                throw MPVError(
                    call: "mpv_render_context_create", message: "the render API needs mpv in this process", code: -1)
            }
            return local
        }
    }

    /// Whether mpv runs in a process of its own.
    public var isSeparateProcess: Bool { remote != nil }
    /// The pid of mpv's own process, if it has one.
    public var processID: Int32? { remote?.pid }
    /// How mpv's own process confined itself (``ConfinementReport``'s words), once it has started;
    /// `nil` in this process, or when it was not asked to.
    public var confinement: String? { remote?.confinement }

    /// Creates a player with `options` set before `mpv_initialize` (for example `vo=null`), in a
    /// process of its own (`upright-mpv`) when `separateProcess`.
    public convenience init(options: [(String, String)] = [], separateProcess: Bool) throws(MPVError) {
        try self.init(starting: options, separateProcess: separateProcess)
        try waitStarted()
    }

    /// The same, and `observing` observed and `commands` run once mpv has started, without waiting
    /// for a process of its own: it may still be loading libmpv, and the caller goes on meanwhile
    /// (finding its display, say). ``waitStarted()`` says how the start went, and each call waits
    /// for it; a failure to start (a bad option, a refused command) is thrown by both. In this
    /// process, all is done before the init returns.
    public convenience init(
        starting options: [(String, String)], observing: [(String, MPVValue.Kind)] = [], commands: [[String]] = [],
        separateProcess: Bool, confinement: ConfinementPolicy? = nil
    ) throws(MPVError) {
        if separateProcess {
            let calls = observing.map { MPVWire.Call.observe($0.0, $0.1) } + commands.map { MPVWire.Call.command($0) }
            self.init(remote: try MPVRemote(options: options, then: calls, confinement: confinement))
        } else {
            MPVRemote.discardSpare()
            try self.init(options: options, keepsCore: false)
            for (name, kind) in observing { try observe(name, as: kind) }
            for words in commands { try command(words) }
        }
    }

    /// Waits until mpv has started (at once in this process); throws why it could not.
    public func waitStarted() throws(MPVError) { try remote?.waitStarted() }

    /// Starts the player's mpv process now (for `upright play`, before it reads its configuration):
    /// libmpv loads meanwhile, and the first player made with `separateProcess` takes that process.
    /// `forking`: as a fork of this process, which must have one thread (the first thing in `main`).
    public static var hasProcessAhead: Bool { MPVRemote.hasSpare }

    public static func startProcessAhead(forking: Bool = false) {
        if forking { MPVRemote.forkAhead() } else { MPVRemote.startAhead() }
    }

    private init(remote: MPVRemote) {
        self.remote = remote
        local = nil
        lifetime = Lifetime()
        events = remote.events
    }

    /// Creates a player in this process with `options` set before `mpv_initialize` (for example `vo=null`).
    public convenience init(options: [(String, String)] = []) throws(MPVError) {
        try self.init(options: options, keepsCore: false)
    }

    /// A core in this process; `keepsCore`: not destroyed at its shutdown (the process is about to end).
    init(options: [(String, String)], keepsCore: Bool) throws(MPVError) {
        // mpv parses numbers with the C locale and refuses to start under another LC_NUMERIC.
        setlocale(LC_NUMERIC, "C")
        let h = try MPVCores.creating { () throws(MPVError) -> OpaquePointer in
            guard let h = upright_mpv_create() else {
                if let failure = upright_mpv_load_failure() {
                    throw MPVError(call: "dlopen(libmpv)", message: String(cString: failure), code: -1)
                }
                throw MPVError(call: "mpv_create()", message: "out of memory or a bad locale", code: -1)
            }
            MPVCloseGuard.findLibraries()  // libmpv is loaded by the process's first core
            return h
        }
        local = h
        remote = nil
        /// A core that cannot start is destroyed here, and counted gone.
        func fail(_ status: Int32, _ call: String) throws(MPVError) {
            guard status < 0 else { return }
            upright_mpv_terminate_destroy(h)
            MPVCores.destroyed()
            try MPVError.check(status, call)
        }
        for (name, value) in options {
            try fail(upright_mpv_set_option_string(h, name, value), "mpv_set_option_string(\(name)=\(value))")
        }
        try fail(upright_mpv_initialize(h), "mpv_initialize()")
        let (stream, continuation) = AsyncStream.makeStream(of: MPVEvent.self, bufferingPolicy: .bufferingNewest(1024))
        events = stream
        // The event thread owns the last step of the handle's life: on MPV_EVENT_SHUTDOWN (after `quit`,
        // which `deinit` sends) it calls mpv_terminate_destroy, so the handle is never freed while the
        // thread waits on it.
        let pointer = HandlePointer(handle: h)
        let lifetime = Lifetime()
        self.lifetime = lifetime
        Blocking.thread(named: "upright-mpv-events") {
            while true {
                guard let e = upright_mpv_wait_event(pointer.handle, -1) else { continue }
                let event = MPVHandle.copy(e.pointee)
                if case .other("none") = event { continue }
                continuation.yield(event)
                if case .shutdown = event { break }
            }
            continuation.finish()
            if keepsCore { return }
            // A render context must be freed before the core goes (render.h): wait for the last one.
            while lifetime.renderers > 0 { usleep(1000) }
            lifetime.destroy { upright_mpv_terminate_destroy(pointer.handle) }
            MPVCores.destroyed()
        }
    }

    /// Asks mpv to quit; the event thread destroys the handle when mpv has shut down.
    deinit { quit() }

    /// Runs a client call unless mpv has shut down, and checks its status.
    func guarded(_ call: @autoclosure () -> String, _ body: (OpaquePointer) -> Int32) throws(MPVError) {
        guard let local, let status = lifetime.alive({ body(local) }) else {
            throw MPVError(call: call(), message: MPVError.shutDownMessage, code: -3)
        }
        try MPVError.check(status, call())
    }

    // MARK: - Properties

    /// Reads a typed property (`mpv_get_property`).
    public func get<V: MPVConvertible>(_ property: MPVProperty<V>) throws(MPVError) -> V {
        let value = try get(property.name, as: V.mpvKind)
        guard let v = V(mpvValue: value) else {
            throw MPVError(call: "mpv_get_property(\(property.name))", message: "unexpected value \(value)", code: -9)
        }
        return v
    }

    /// Sets a typed property (`mpv_set_property`).
    public func set<V: MPVConvertible>(_ property: MPVProperty<V>, _ value: V) throws(MPVError) {
        try set(property.name, value.mpvValue)
    }

    /// Reads a property in the given format.
    public func get(_ name: String, as kind: MPVValue.Kind) throws(MPVError) -> MPVValue {
        let call = "mpv_get_property(\(name))"
        if let remote {
            guard case .value(let v) = try remote.call(.get(name, kind), describing: call) else {
                throw MPVError(call: call, message: "mpv's process answered out of turn", code: -1)
            }
            return v
        }
        switch kind {
        case .string:
            var p: UnsafeMutablePointer<CChar>?
            try guarded(call) { upright_mpv_get_property($0, name, MPV_FORMAT_STRING, &p) }
            defer { upright_mpv_free(p) }
            return .string(p.map { String(cString: $0) } ?? "")
        case .flag:
            var v: Int32 = 0
            try guarded(call) { upright_mpv_get_property($0, name, MPV_FORMAT_FLAG, &v) }
            return .flag(v != 0)
        case .int64:
            var v: Int64 = 0
            try guarded(call) { upright_mpv_get_property($0, name, MPV_FORMAT_INT64, &v) }
            return .int64(v)
        case .double:
            var v = 0.0
            try guarded(call) { upright_mpv_get_property($0, name, MPV_FORMAT_DOUBLE, &v) }
            return .double(v)
        }
    }

    /// Sets a property.
    public func set(_ name: String, _ value: MPVValue) throws(MPVError) {
        let call = "mpv_set_property(\(name))"
        if let remote {
            _ = try remote.call(.set(name, value), describing: call)
            return
        }
        switch value {
        case .string(let s):
            try guarded(call) { upright_mpv_set_property_string($0, name, s) }
        case .flag(let b):
            var v: Int32 = b ? 1 : 0
            try guarded(call) { upright_mpv_set_property($0, name, MPV_FORMAT_FLAG, &v) }
        case .int64(let i):
            var v = i
            try guarded(call) { upright_mpv_set_property($0, name, MPV_FORMAT_INT64, &v) }
        case .double(let d):
            var v = d
            try guarded(call) { upright_mpv_set_property($0, name, MPV_FORMAT_DOUBLE, &v) }
        }
    }

    /// Reads a property as a string (`mpv_get_property_string`); `nil` when it is unavailable.
    public func string(_ property: String) -> String? {
        if let remote {
            let answer = try? remote.call(.string(property), describing: "mpv_get_property_string(\(property))")
            guard case .string(let s) = answer else { return nil }
            return s
        }
        guard let local else { return nil }
        return lifetime.alive { () -> String? in
            guard let p = upright_mpv_get_property_string(local, property) else { return nil }
            defer { upright_mpv_free(p) }
            return String(cString: p)
        } ?? nil
    }

    /// Asks for ``MPVEvent/propertyChange(name:value:)`` events for a property (`mpv_observe_property`).
    public func observe(_ name: String, as kind: MPVValue.Kind) throws(MPVError) {
        if let remote {
            _ = try remote.call(.observe(name, kind), describing: "mpv_observe_property(\(name))")
            return
        }
        let format: mpv_format =
            switch kind {
            case .string: MPV_FORMAT_STRING
            case .flag: MPV_FORMAT_FLAG
            case .int64: MPV_FORMAT_INT64
            case .double: MPV_FORMAT_DOUBLE
            }
        try guarded("mpv_observe_property(\(name))") { upright_mpv_observe_property($0, 0, name, format) }
    }

    // MARK: - Commands

    /// Runs a command (`mpv_command`), for example `["loadfile", path]`.
    public func command(_ arguments: [String]) throws(MPVError) {
        if let remote {
            _ = try remote.call(.command(arguments), describing: "mpv_command(\(arguments.joined(separator: " ")))")
            return
        }
        try guarded("mpv_command(\(arguments.joined(separator: " ")))") { h in
            Self.withCStrings(arguments) { upright_mpv_command(h, $0) }
        }
    }

    /// The length of `path` in seconds as mpv reads it (for a wall's schedule), by a core of its
    /// own that shows and plays nothing, given up after `timeout` seconds; `nil` for a file without
    /// one (a still image, a live stream). In mpv's process when the player has one.
    public func probeLength(_ path: String, timeout: Double = 10) throws(MPVError) -> Double? {
        if let remote {
            let answer = try remote.call(.probeLength(path, timeout: timeout), describing: "probe of \(path)")
            if case .value(.double(let d)) = answer { return d }
            return nil
        }
        return try Self.probeLengthHere(path, timeout: timeout)
    }

    static func probeLengthHere(_ path: String, timeout: Double) throws(MPVError) -> Double? {
        let call = "probe of \(path)"
        let options = [("vo", "null"), ("pause", "yes"), ("idle", "yes"), ("input-default-bindings", "no")]
        return try withCore(call, options: options) { h throws(MPVError) -> Double? in
            try probeLength(path, on: h, call: call, timeout: timeout)
        }
    }

    /// A core of its own for one job: `options` set (beside a quiet core's: no audio, no
    /// configuration, scripts or terminal), initialized, and destroyed after `body`.
    static func withCore<R>(
        _ call: String, options: [(String, String)], _ body: (OpaquePointer) throws(MPVError) -> R
    ) throws(MPVError) -> R {
        setlocale(LC_NUMERIC, "C")
        let h = try MPVCores.creating { () throws(MPVError) -> OpaquePointer in
            guard let h = upright_mpv_create() else {
                let why = upright_mpv_load_failure().map { String(cString: $0) } ?? "mpv_create() failed"
                throw MPVError(call: call, message: why, code: -1)
            }
            return h
        }
        defer {
            upright_mpv_terminate_destroy(h)
            MPVCores.destroyed()
        }
        let quiet = [
            ("ao", "null"), ("config", "no"), ("terminal", "no"), ("load-scripts", "no"), ("ytdl", "no"), ("osc", "no"),
        ]
        for (name, value) in quiet + options {
            try MPVError.check(upright_mpv_set_option_string(h, name, value), "\(call): \(name)=\(value)")
        }
        try MPVError.check(upright_mpv_initialize(h), call)
        return try body(h)
    }

    static func probeLength(_ path: String, on h: OpaquePointer, call: String, timeout: Double) throws(MPVError)
        -> Double?
    {
        try MPVError.check(Self.withCStrings(["loadfile", path]) { upright_mpv_command(h, $0) }, call)
        return try waitEvent(h, call: call, timeout: timeout, ended: "it ended before it loaded") { e -> Double?? in
            guard e.event_id == MPV_EVENT_FILE_LOADED else { return nil }
            var length = 0.0
            guard upright_mpv_get_property(h, "duration", MPV_FORMAT_DOUBLE, &length) >= 0, length.isFinite, length > 0
            else { return .some(nil) }
            return length
        }
    }

    /// Waits up to `timeout` seconds for the event `pick` answers (with something not `nil`) on a
    /// core of one job's; the file's end first (`ended` when it had no error) or the core's
    /// shutdown are thrown.
    static func waitEvent<R>(
        _ h: OpaquePointer, call: String, timeout: Double, ended: String, _ pick: (mpv_event) -> R?
    ) throws(MPVError) -> R {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let left = Double(deadline - min(deadline, DispatchTime.now().uptimeNanoseconds)) / 1e9
            guard let e = upright_mpv_wait_event(h, left) else { continue }
            if let picked = pick(e.pointee) { return picked }
            switch e.pointee.event_id {
            case MPV_EVENT_END_FILE:
                let end = e.pointee.data.assumingMemoryBound(to: mpv_event_end_file.self).pointee
                let why = end.error < 0 ? String(cString: upright_mpv_error_string(end.error)) : ended
                throw MPVError(call: call, message: why, code: end.error)
            case MPV_EVENT_SHUTDOWN: throw MPVError(call: call, message: MPVError.shutDownMessage, code: -3)
            default: continue
            }
        }
        throw MPVError(call: call, message: "not done within \(timeout) s", code: -1)
    }

    /// A screenshot as 4-byte pixels (`screenshot-raw MODE`): `window` is what the window shows,
    /// OSD included, where the video output can take one (gpu); `subtitles` is the video frame
    /// with subtitles, which every output that shows video can give.
    public func screenshot(_ mode: String = "window") throws(MPVError) -> MPVFrame {
        if let remote {
            let call = "mpv_command_ret(screenshot-raw \(mode))"
            guard
                case .frame(let w, let h, let stride, let pixels) = try remote.call(.screenshot(mode), describing: call)
            else { throw MPVError(call: call, message: "mpv's process answered out of turn", code: -1) }
            return MPVFrame(width: w, height: h, stride: stride, pixels: pixels)
        }
        var frame: MPVFrame?
        try guarded("mpv_command_ret(screenshot-raw \(mode))") { h in
            var result = mpv_node()
            let status = Self.withCStrings(["screenshot-raw", mode]) { upright_mpv_command_ret(h, $0, &result) }
            guard status >= 0 else { return status }
            defer { upright_mpv_free_node_contents(&result) }
            guard result.format == MPV_FORMAT_NODE_MAP, let list = result.u.list?.pointee else { return -1 }
            var w = 0, h = 0, rowBytes = 0, format = "", bytes: [UInt8] = []
            for i in 0..<Int(list.num) {
                let key = String(cString: list.keys[i]!)
                let v = list.values[i]
                switch key {
                case "w": w = Int(v.u.int64)
                case "h": h = Int(v.u.int64)
                case "stride": rowBytes = Int(v.u.int64)
                case "format": format = String(cString: v.u.string)
                case "data":
                    if let ba = v.u.ba?.pointee, let data = ba.data {
                        bytes = Array(UnsafeRawBufferPointer(start: data, count: ba.size))
                    }
                default: break
                }
            }
            // mpv hands out bgr0; frames here are rgb0, as the software renderer's.
            if format == "bgr0" {
                for i in stride(from: 0, to: bytes.count - 3, by: 4) { bytes.swapAt(i, i + 2) }
            }
            frame = MPVFrame(width: w, height: h, stride: rowBytes, pixels: bytes)
            return 0
        }
        return frame!
    }

    /// Asks mpv to quit; the event stream then ends with ``MPVEvent/shutdown``. From then on no
    /// client call reaches it (they fail as after its shutdown):
    /// libmpv 0.35's Wayland output crashed when a call's wake-up met its window being torn down
    /// (`vo_wayland_wakeup` on a freed state).
    public func quit() {
        if let remote { return remote.quit() }
        guard let local else { return }
        lifetime.quit { Self.withCStrings(["quit"]) { _ = upright_mpv_command(local, $0) } }
    }

    /// Asks mpv to quit and waits until its core is destroyed (`mpv_terminate_destroy` has
    /// returned: every thread of mpv's has ended), `timeout` at the most. A process must not exit
    /// before: `exit` under a live video output's GL threads corrupts the heap. False when mpv did
    /// not end within `timeout` seconds.
    public func shutdown(timeout: Double = 5) async -> Bool {
        quit()
        let deadline = DispatchTime.now() + timeout
        if let remote { return await Blocking.run { remote.waitEnded(until: deadline) } }
        let lifetime = lifetime
        return await Blocking.run { lifetime.waitDestroyed(until: deadline) }
    }

    static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    // MARK: - Events

    /// Copies an `mpv_event` into Swift values: the struct and what it points to die at the next wait.
    static func copy(_ e: mpv_event) -> MPVEvent {
        switch e.event_id {
        case MPV_EVENT_NONE: return .other("none")
        case MPV_EVENT_SHUTDOWN: return .shutdown
        case MPV_EVENT_START_FILE:
            let entry = e.data?.assumingMemoryBound(to: mpv_event_start_file.self).pointee.playlist_entry_id ?? 0
            return .startFile(playlistEntry: entry)
        case MPV_EVENT_FILE_LOADED: return .fileLoaded
        case MPV_EVENT_END_FILE:
            guard let end = e.data?.assumingMemoryBound(to: mpv_event_end_file.self).pointee else {
                return .endFile(reason: "unknown", error: nil, playlistEntry: 0)
            }
            return copy(end)
        case MPV_EVENT_PLAYBACK_RESTART: return .playbackRestart
        case MPV_EVENT_VIDEO_RECONFIG: return .videoReconfigured
        case MPV_EVENT_IDLE: return .idle
        case MPV_EVENT_PROPERTY_CHANGE:
            guard let p = e.data?.assumingMemoryBound(to: mpv_event_property.self).pointee else {
                return .other("property-change")
            }
            return copy(p)
        case MPV_EVENT_CLIENT_MESSAGE:
            guard let m = e.data?.assumingMemoryBound(to: mpv_event_client_message.self).pointee else {
                return .clientMessage([])
            }
            let args = (0..<Int(m.num_args)).map { String(cString: m.args[$0]!) }
            return .clientMessage(args)
        case MPV_EVENT_LOG_MESSAGE:
            guard let m = e.data?.assumingMemoryBound(to: mpv_event_log_message.self).pointee else {
                return .other("log-message")
            }
            return .log(
                prefix: String(cString: m.prefix), level: String(cString: m.level), text: String(cString: m.text))
        default:
            return .other(String(cString: upright_mpv_event_name(e.event_id)))
        }
    }

    /// An end-file event's reason, and mpv's error for one that failed.
    private static func copy(_ end: mpv_event_end_file) -> MPVEvent {
        let reason: String =
            switch end.reason {
            case MPV_END_FILE_REASON_EOF: "eof"
            case MPV_END_FILE_REASON_STOP: "stop"
            case MPV_END_FILE_REASON_QUIT: "quit"
            case MPV_END_FILE_REASON_ERROR: "error"
            case MPV_END_FILE_REASON_REDIRECT: "redirect"
            default: "unknown"
            }
        return .endFile(
            reason: reason, error: end.error < 0 ? String(cString: upright_mpv_error_string(end.error)) : nil,
            playlistEntry: end.playlist_entry_id)
    }

    /// A property-change event's name and value, in the format it was observed with.
    private static func copy(_ p: mpv_event_property) -> MPVEvent {
        let name = String(cString: p.name)
        guard let data = p.data else { return .propertyChange(name: name, value: nil) }
        let value: MPVValue? =
            switch p.format {
            case MPV_FORMAT_STRING:
                data.assumingMemoryBound(to: UnsafePointer<CChar>?.self).pointee.map { .string(String(cString: $0)) }
            case MPV_FORMAT_FLAG: .flag(data.assumingMemoryBound(to: Int32.self).pointee != 0)
            case MPV_FORMAT_INT64: .int64(data.assumingMemoryBound(to: Int64.self).pointee)
            case MPV_FORMAT_DOUBLE: .double(data.assumingMemoryBound(to: Double.self).pointee)
            default: nil
            }
        return .propertyChange(name: name, value: value)
    }
}

/// The life of a handle, shared with its event thread: how many render contexts use it, and
/// whether the core is gone. Every client call runs under the lock, so none can race with
/// `mpv_terminate_destroy`.
final class Lifetime: Sendable {
    private struct State {
        var renderers = 0
        var destroyed = false
        /// `quit` was sent: the core is going, and takes no more calls.
        var quitting = false
    }

    private let state = Mutex(State())
    /// Left once the core is destroyed, for ``waitDestroyed(until:)``.
    private let alive = DispatchGroup()

    init() { alive.enter() }
    var renderers: Int { state.withLock { $0.renderers } }
    func add(_ n: Int) { state.withLock { $0.renderers += n } }

    /// Runs `body` unless the core is gone or going (then `nil`).
    func alive<R>(_ body: () -> R) -> R? {
        state.withLock { s in s.destroyed || s.quitting ? nil : body() }
    }

    /// Runs `body` (the `quit` command) once, unless the core is gone; later calls see it going.
    func quit(_ body: () -> Void) {
        state.withLock { s in
            guard !s.destroyed, !s.quitting else { return }
            body()
            s.quitting = true
        }
    }

    /// Destroys the core under the lock; later calls see it gone.
    func destroy(_ body: () -> Void) {
        let destroyed = state.withLock { s in
            guard !s.destroyed else { return false }
            body()
            s.destroyed = true
            return true
        }
        if destroyed { alive.leave() }
    }

    /// Blocks until the core is destroyed or `deadline`; true when it is.
    func waitDestroyed(until deadline: DispatchTime) -> Bool { alive.wait(timeout: deadline) == .success }
}

/// The raw handle, for the event thread.
// @unchecked: libmpv's client API is thread-safe; the pointer is only read.
struct HandlePointer: @unchecked Sendable {
    let handle: OpaquePointer
}

/// The libmpv client API version as "major.minor" (`mpv_client_api_version`).
public var mpvClientAPIVersion: String {
    let v = upright_mpv_client_api_version()
    return "\(v >> 16).\(v & 0xffff)"
}
