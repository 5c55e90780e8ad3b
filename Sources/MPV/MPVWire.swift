import Confinement
import Foundation

/// The conversation between a player and its mpv in a process of its own (`upright-mpv`): one
/// frame a message, each way (``WireWriter``: a length, then the message's fields in a fixed
/// order). The player sends ``Start`` once, then ``Request``s; mpv's process answers the start,
/// each request by its id, and sends mpv's events as they come.
///
/// The fields are written and read by hand, not by `Codable` and JSON: both processes start with
/// this conversation, and on a slow board (or under emulation) the Swift runtime's first look-ups
/// of the generic types `JSONEncoder` and `JSONDecoder` walk through cost more than the rest of
/// the start (`make bench`, `scripts/bench_start.py`).
enum MPVWire {
    /// mpv's process finds its end of the socket pair here (its standard output is mpv's terminal).
    static let descriptor: Int32 = 3

    /// The first message: the options mpv starts with, in order, the player's environment now
    /// (the process may have been started before the display was found: ``MPVRemote/startAhead()``),
    /// and the calls that belong to the start (properties observed, keys bound): the start's
    /// answer comes after them, and the first that fails is the start's failure.
    struct Start: Equatable {
        var options: [(String, String)]
        var environment: [String: String]
        var calls: [Call] = []
        /// What mpv's process confines itself to before it starts mpv; `nil`: nothing.
        var confinement: ConfinementPolicy?

        static func == (a: Start, b: Start) -> Bool {
            a.options.elementsEqual(b.options, by: ==) && a.environment == b.environment && a.calls == b.calls
                && a.confinement == b.confinement
        }
    }

    /// One client call.
    enum Call: Equatable {
        case get(String, MPVValue.Kind)
        case set(String, MPVValue)
        case string(String)
        case observe(String, MPVValue.Kind)
        case command([String])
        case screenshot(String)
        /// A file's length, read by a core of its own (``MPVHandle/probeLength(_:timeout:)``).
        case probeLength(String, timeout: Double)
        /// A zone drawn over the video (``MPVHandle/draw(_:)``).
        case zone(ZoneDrawing)
        /// No answer: mpv's process ends.
        case quit
    }

    struct Request: Equatable {
        var id: Int
        var call: Call
    }

    /// A call's outcome.
    enum Outcome: Equatable {
        case done
        case value(MPVValue)
        case string(String?)
        case frame(width: Int, height: Int, stride: Int, pixels: [UInt8])
        case failed(MPVError)
    }

    enum Message: Equatable {
        /// The answer to ``Start``: `nil` when mpv started; how the process is confined (`nil`: it
        /// was not asked to be).
        case started(MPVError?, confined: String?)
        case reply(id: Int, Outcome)
        case event(MPVEvent)
    }
}

// MARK: - Frames

/// One message's bytes: its length (4 bytes, little-endian, not counting itself), then its
/// fields: a byte, an integer (8 bytes, little-endian), a double (its bits as an integer), bytes
/// and strings (UTF-8) after their count, lists after theirs, an optional after a byte (0: none).
struct WireWriter {
    private(set) var bytes: [UInt8] = [0, 0, 0, 0]

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func int(_ value: Int) { int(Int64(value)) }
    mutating func int(_ value: Int32) { int(Int64(value)) }
    mutating func double(_ value: Double) { int(Int64(bitPattern: value.bitPattern)) }

    mutating func raw(_ value: [UInt8]) {
        int(value.count)
        bytes.append(contentsOf: value)
    }
    mutating func string(_ value: String) {
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
    mutating func string(_ value: String?) {
        flag(value != nil)
        if let value { string(value) }
    }
    mutating func strings(_ value: [String]) {
        int(value.count)
        for s in value { string(s) }
    }

    /// The message, its length in front.
    var frame: [UInt8] {
        var framed = bytes
        let length = UInt32(bytes.count - 4).littleEndian
        withUnsafeBytes(of: length) { framed.replaceSubrange(0..<4, with: $0) }
        return framed
    }
}

/// A message's fields read back in the order they were written; `nil` for a message cut short or
/// with a count past its end.
struct WireReader {
    let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte was read (a longer message is not the one expected).
    var isAtEnd: Bool { at == bytes.count }

    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }
    mutating func flag() -> Bool? { byte().flatMap { $0 <= 1 ? $0 == 1 : nil } }

    mutating func int() -> Int64? {
        guard bytes.count - at >= 8 else { return nil }
        var value: Int64 = 0
        for i in (0..<8).reversed() { value = value << 8 | Int64(bytes[at + i]) }
        at += 8
        return value
    }
    mutating func integer() -> Int? { int().map { Int($0) } }
    mutating func int32() -> Int32? { int().flatMap { Int32(exactly: $0) } }
    mutating func double() -> Double? { int().map { Double(bitPattern: UInt64(bitPattern: $0)) } }

    /// A count that the bytes left can hold (each counted thing takes at least `least` bytes).
    fileprivate mutating func count(least: Int) -> Int? {
        guard let n = integer(), n >= 0, n <= (bytes.count - at) / max(least, 1) else { return nil }
        return n
    }
    mutating func raw() -> [UInt8]? {
        guard let n = count(least: 1) else { return nil }
        defer { at += n }
        return Array(bytes[at..<at + n])
    }
    mutating func string() -> String? { raw().map { String(decoding: $0, as: UTF8.self) } }
    mutating func optionalString() -> String?? {
        guard let present = flag() else { return nil }
        return present ? string().map { .some($0) } : .some(nil)
    }
    mutating func strings() -> [String]? {
        guard let n = count(least: 8) else { return nil }
        var list: [String] = []
        list.reserveCapacity(n)
        for _ in 0..<n {
            guard let s = string() else { return nil }
            list.append(s)
        }
        return list
    }
}

// MARK: - The messages' fields

extension MPVWire.Start {
    var frame: [UInt8] {
        var w = WireWriter()
        w.int(options.count)
        for (name, value) in options {
            w.string(name)
            w.string(value)
        }
        w.int(environment.count)
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            w.string(name)
            w.string(value)
        }
        w.int(calls.count)
        for call in calls { call.write(to: &w) }
        w.flag(confinement != nil)
        if let confinement {
            w.strings(confinement.readable)
            w.strings(confinement.writable)
            w.strings(confinement.devices)
        }
        return w.frame
    }

    init?(_ bytes: [UInt8]) {
        var r = WireReader(bytes)
        guard let options = r.pairs(), let environment = r.pairs(), let n = r.count(least: 1) else { return nil }
        var calls: [MPVWire.Call] = []
        for _ in 0..<n {
            guard let call = r.call() else { return nil }
            calls.append(call)
        }
        guard let confined = r.flag() else { return nil }
        var confinement: ConfinementPolicy?
        if confined {
            guard let readable = r.strings(), let writable = r.strings(), let devices = r.strings() else { return nil }
            confinement = ConfinementPolicy(readable: readable, writable: writable, devices: devices)
        }
        guard r.isAtEnd else { return nil }
        self.init(
            options: options, environment: Dictionary(environment, uniquingKeysWith: { _, last in last }), calls: calls,
            confinement: confinement)
    }
}

extension MPVWire.Request {
    var frame: [UInt8] {
        var w = WireWriter()
        w.int(id)
        call.write(to: &w)
        return w.frame
    }

    init?(_ bytes: [UInt8]) {
        var r = WireReader(bytes)
        guard let id = r.integer(), let call = r.call(), r.isAtEnd else { return nil }
        self.init(id: id, call: call)
    }
}

extension MPVWire.Call {
    fileprivate func write(to w: inout WireWriter) {
        switch self {
        case .get(let name, let kind):
            w.byte(0)
            w.string(name)
            kind.write(to: &w)
        case .set(let name, let value):
            w.byte(1)
            w.string(name)
            value.write(to: &w)
        case .string(let name):
            w.byte(2)
            w.string(name)
        case .observe(let name, let kind):
            w.byte(3)
            w.string(name)
            kind.write(to: &w)
        case .command(let words):
            w.byte(4)
            w.strings(words)
        case .screenshot(let mode):
            w.byte(5)
            w.string(mode)
        case .quit: w.byte(6)
        case .probeLength(let path, let timeout):
            w.byte(7)
            w.string(path)
            w.double(timeout)
        case .zone(let z):
            w.byte(8)
            for n in [z.id, z.x, z.y, z.width, z.height] { w.int(n) }
            switch z.source {
            case .color(let hex):
                w.byte(0)
                w.string(hex)
            case .picture(let path, let options):
                w.byte(1)
                w.string(path)
                w.strings(options.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
            }
        }
    }
}

extension MPVWire.Message {
    var frame: [UInt8] {
        var w = WireWriter()
        switch self {
        case .started(let failure, let confined):
            w.byte(0)
            w.flag(failure != nil)
            failure?.write(to: &w)
            w.string(confined)
        case .reply(let id, let outcome):
            w.byte(1)
            w.int(id)
            outcome.write(to: &w)
        case .event(let event):
            w.byte(2)
            event.write(to: &w)
        }
        return w.frame
    }

    init?(_ bytes: [UInt8]) {
        var r = WireReader(bytes)
        guard let message = r.message(), r.isAtEnd else { return nil }
        self = message
    }
}

extension WireReader {
    fileprivate mutating func pairs() -> [(String, String)]? {
        guard let n = count(least: 16) else { return nil }
        var list: [(String, String)] = []
        for _ in 0..<n {
            guard let name = string(), let value = string() else { return nil }
            list.append((name, value))
        }
        return list
    }

    fileprivate mutating func call() -> MPVWire.Call? {
        switch byte() {
        case 0: string().flatMap { name in kind().map { .get(name, $0) } }
        case 1: string().flatMap { name in value().map { .set(name, $0) } }
        case 2: string().map { .string($0) }
        case 3: string().flatMap { name in kind().map { .observe(name, $0) } }
        case 4: strings().map { .command($0) }
        case 5: string().map { .screenshot($0) }
        case 6: .quit
        case 7: string().flatMap { path in double().map { .probeLength(path, timeout: $0) } }
        case 8: zone().map { .zone($0) }
        default: nil
        }
    }

    fileprivate mutating func zone() -> ZoneDrawing? {
        var numbers: [Int] = []
        for _ in 0..<5 {
            guard let n = integer(), (-(1 << 20)...(1 << 20)).contains(n) else { return nil }
            numbers.append(Int(n))
        }
        let source: ZoneSource
        switch byte() {
        case 0:
            guard let hex = string() else { return nil }
            source = .color(hex)
        case 1:
            guard let path = string(), let words = strings(), words.count % 2 == 0 else { return nil }
            var options: [String: String] = [:]
            for k in stride(from: 0, to: words.count, by: 2) { options[words[k]] = words[k + 1] }
            source = .picture(path: path, options: options)
        default: return nil
        }
        return ZoneDrawing(
            id: numbers[0], x: numbers[1], y: numbers[2], width: numbers[3], height: numbers[4], source: source)
    }

    fileprivate mutating func message() -> MPVWire.Message? {
        switch byte() {
        case 0:
            guard let failed = flag() else { return nil }
            var failure: MPVError?
            if failed {
                guard let error = error() else { return nil }
                failure = error
            }
            guard let confined = optionalString() else { return nil }
            return .started(failure, confined: confined)
        case 1:
            guard let id = integer(), let outcome = outcome() else { return nil }
            return .reply(id: id, outcome)
        case 2: return event().map { .event($0) }
        default: return nil
        }
    }

    fileprivate mutating func outcome() -> MPVWire.Outcome? {
        switch byte() {
        case 0: return .done
        case 1: return value().map { .value($0) }
        case 2: return optionalString().map { .string($0) }
        case 3:
            guard let width = integer(), let height = integer(), let stride = integer(), let pixels = raw() else {
                return nil
            }
            return .frame(width: width, height: height, stride: stride, pixels: pixels)
        case 4: return error().map { .failed($0) }
        default: return nil
        }
    }

    fileprivate mutating func kind() -> MPVValue.Kind? {
        switch byte() {
        case 0: .string
        case 1: .flag
        case 2: .int64
        case 3: .double
        default: nil
        }
    }

    fileprivate mutating func value() -> MPVValue? {
        switch byte() {
        case 0: string().map { .string($0) }
        case 1: flag().map { .flag($0) }
        case 2: int().map { .int64($0) }
        case 3: double().map { .double($0) }
        default: nil
        }
    }

    fileprivate mutating func error() -> MPVError? {
        guard let call = string(), let message = string(), let code = int32() else { return nil }
        return MPVError(call: call, message: message, code: code)
    }

    fileprivate mutating func event() -> MPVEvent? {
        switch byte() {
        case 0: return int().map { .startFile(playlistEntry: $0) }
        case 1: return .fileLoaded
        case 2:
            guard let reason = string(), let error = optionalString(), let entry = int() else { return nil }
            return .endFile(reason: reason, error: error, playlistEntry: entry)
        case 3: return .playbackRestart
        case 4: return .videoReconfigured
        case 5: return .idle
        case 6:
            guard let name = string(), let present = flag() else { return nil }
            guard present else { return .propertyChange(name: name, value: nil) }
            return value().map { .propertyChange(name: name, value: $0) }
        case 7: return strings().map { .clientMessage($0) }
        case 8:
            guard let prefix = string(), let level = string(), let text = string() else { return nil }
            return .log(prefix: prefix, level: level, text: text)
        case 9: return .shutdown
        case 10: return string().map { .other($0) }
        default: return nil
        }
    }
}

extension MPVValue.Kind {
    fileprivate func write(to w: inout WireWriter) {
        switch self {
        case .string: w.byte(0)
        case .flag: w.byte(1)
        case .int64: w.byte(2)
        case .double: w.byte(3)
        }
    }
}

extension MPVValue {
    fileprivate func write(to w: inout WireWriter) {
        switch self {
        case .string(let s):
            w.byte(0)
            w.string(s)
        case .flag(let b):
            w.byte(1)
            w.flag(b)
        case .int64(let i):
            w.byte(2)
            w.int(i)
        case .double(let d):
            w.byte(3)
            w.double(d)
        }
    }
}

extension MPVError {
    fileprivate func write(to w: inout WireWriter) {
        w.string(call)
        w.string(message)
        w.int(code)
    }
}

extension MPVWire.Outcome {
    fileprivate func write(to w: inout WireWriter) {
        switch self {
        case .done: w.byte(0)
        case .value(let v):
            w.byte(1)
            v.write(to: &w)
        case .string(let s):
            w.byte(2)
            w.string(s)
        case .frame(let width, let height, let stride, let pixels):
            w.byte(3)
            w.int(width)
            w.int(height)
            w.int(stride)
            w.raw(pixels)
        case .failed(let e):
            w.byte(4)
            e.write(to: &w)
        }
    }
}

extension MPVEvent {
    fileprivate func write(to w: inout WireWriter) {
        switch self {
        case .startFile(let entry):
            w.byte(0)
            w.int(entry)
        case .fileLoaded: w.byte(1)
        case .endFile(let reason, let error, let entry):
            w.byte(2)
            w.string(reason)
            w.string(error)
            w.int(entry)
        case .playbackRestart: w.byte(3)
        case .videoReconfigured: w.byte(4)
        case .idle: w.byte(5)
        case .propertyChange(let name, let value):
            w.byte(6)
            w.string(name)
            w.flag(value != nil)
            value?.write(to: &w)
        case .clientMessage(let words):
            w.byte(7)
            w.strings(words)
        case .log(let prefix, let level, let text):
            w.byte(8)
            w.string(prefix)
            w.string(level)
            w.string(text)
        case .shutdown: w.byte(9)
        case .other(let name):
            w.byte(10)
            w.string(name)
        }
    }
}

// MARK: - Reading frames

/// Reads length-prefixed frames (``WireWriter/frame``) from a descriptor, blocking.
struct FrameReader {
    /// The longest frame taken: a picture of 8192 × 8192 pixels, 4 bytes each, with room to
    /// spare. A longer one is a broken stream (a descriptor that is no longer the other
    /// process's), which ends, rather than a buffer that grows until the system kills the process.
    static let longest = 384 << 20

    let fd: Int32
    let longest: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where each read lands (made at the first).
    private var chunk: [UInt8] = []

    init(fd: Int32, longest: Int = FrameReader.longest) { (self.fd, self.longest) = (fd, longest) }

    /// The next frame's message, without its length; `nil` at the end of the stream, on an error,
    /// or past ``longest``.
    mutating func next() -> [UInt8]? {
        guard fill(4) else { return nil }
        var length = 0
        for i in (0..<4).reversed() { length = length << 8 | Int(buffer[start + i]) }
        guard length <= longest, fill(4 + length) else { return nil }
        let message = Array(buffer[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        if start > 1 << 16 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return message
    }

    /// Reads until `count` bytes past `start` are held; `false` at the end or an error.
    private mutating func fill(_ count: Int) -> Bool {
        while buffer.count - start < count {
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 1 << 16) }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            buffer.append(contentsOf: chunk[..<n])
        }
        return true
    }
}

/// The wire's readers, for the fuzzer and its seeds: `bytes` read as the start, a request and a
/// message (each ends in a value or `nil`, never a crash); how many read as one.
public enum MPVWireFuzz {
    public static func read(_ bytes: [UInt8]) -> Int {
        [MPVWire.Start(bytes) != nil, MPVWire.Request(bytes) != nil, MPVWire.Message(bytes) != nil].filter { $0 }.count
    }
}
