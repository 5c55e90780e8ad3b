import CSystemd
import Glibc
import Synchronization

/// A D-Bus value with its type: what a method takes and returns. An array carries its element's
/// signature, so an empty one is still typed; a dictionary is an array of `dictEntry`s.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case array(String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's D-Bus signature (`s`, `a{sv}`, `(iiduba(ssa{sv}))` …).
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let k, let v): "{" + k.signature + v.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// A dictionary `a{sv}` from its entries.
    public static func dictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    // Reading a reply, loosely: the accessors give `nil` for another type.
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var bool: Bool? {
        switch self {
        case .bool(let b): b
        case .variant(let v): v.bool
        default: nil
        }
    }
    public var int: Int? {
        switch self {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(v)
        case .variant(let v): v.int
        default: nil
        }
    }
    public var double: Double? { if case .double(let d) = self { d } else { nil } }
    /// The elements of an array or the fields of a structure.
    public var items: [DBusValue] {
        switch self {
        case .array(_, let a): a
        case .structure(let f): f
        default: []
        }
    }
    /// The value under `key` in an `a{sv}` (the variant's content).
    public subscript(key: String) -> DBusValue? {
        for case .dictEntry(.string(let k), let v) in items where k == key {
            if case .variant(let inner) = v { return inner }
            return v
        }
        return nil
    }
}

/// A D-Bus error, or a failure to reach the bus, worded with sd-bus's name and message.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`), when there is one.
    public var name: String?
    public var description: String
}

/// A client connection to a D-Bus bus through sd-bus (libsystemd). Its calls block (up to their
/// timeout), so callers run them off the cooperative pool. An sd-bus connection serves one thread
/// at a time: a call takes the kept connection out of its lock and puts it back after (no lock is
/// held across the call); a call made meanwhile opens a connection of its own, closed after it.
public final class DBusConnection: Sendable {
    /// The kept connection, as its pointer's bits (a pointer is not `Sendable`; the bits are, and
    /// only the call holding them uses the connection); 0 while a call has it.
    private let bus: Mutex<Int>
    /// The bus's address (`unix:path=/run/user/1000/bus`).
    public let address: String

    /// Connects to the bus at `address` as a client.
    public init(address: String) throws(DBusError) {
        self.bus = Mutex(Int(bitPattern: try Self.connect(address)))
        self.address = address
    }

    private static func connect(_ address: String) throws(DBusError) -> OpaquePointer? {
        var bus: OpaquePointer?
        var r = sd_bus_new(&bus)
        if r >= 0 { r = sd_bus_set_address(bus, address) }
        if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
        if r >= 0 { r = sd_bus_start(bus) }
        guard r >= 0 else {
            sd_bus_unref(bus)
            throw DBusError(name: nil, description: "cannot connect to the D-Bus bus at \(address): \(Self.text(r))")
        }
        return bus
    }

    /// The session bus of `environment`: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
    public static func sessionAddress(_ environment: [String: String]) -> String? {
        if let a = environment["DBUS_SESSION_BUS_ADDRESS"], !a.isEmpty { return a }
        guard let runtime = environment["XDG_RUNTIME_DIR"], access(runtime + "/bus", F_OK) == 0 else { return nil }
        return "unix:path=\(runtime)/bus"
    }

    deinit { bus.withLock { _ = sd_bus_flush_close_unref(OpaquePointer(bitPattern: $0)) } }

    /// Calls `method` of `interface` on `path` at `destination`, and returns the reply's values.
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [DBusValue] = [],
        timeout: Double = 5
    ) throws(DBusError) -> [DBusValue] {
        let kept = self.bus.withLock { kept in
            defer { kept = 0 }
            return kept
        }
        var bus = OpaquePointer(bitPattern: kept)
        if bus == nil { bus = try Self.connect(address) }
        let bits = Int(bitPattern: bus)
        defer {
            let extra = self.bus.withLock { kept -> Bool in
                guard kept == 0 else { return true }
                kept = bits
                return false
            }
            if extra { _ = sd_bus_flush_close_unref(OpaquePointer(bitPattern: bits)) }
        }
        let result: Result<[DBusValue], DBusError> = {
            var message: OpaquePointer?
            var r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, method)
            defer { sd_bus_message_unref(message) }
            for a in arguments where r >= 0 { r = Self.append(a, to: message) }
            guard r >= 0 else {
                return .failure(DBusError(name: nil, description: "cannot build \(method): \(Self.text(r))"))
            }
            var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            r = sd_bus_call(bus, message, UInt64(timeout * 1e6), &error, &reply)
            defer { sd_bus_message_unref(reply) }
            guard r >= 0 else {
                let name = error.name.map { String(cString: $0) }
                let text = error.message.map { String(cString: $0) } ?? Self.text(r)
                return .failure(DBusError(name: name, description: "\(interface).\(method): \(text)"))
            }
            var values: [DBusValue] = []
            while let v = Self.read(reply) { values.append(v) }
            return .success(values)
        }()
        return try result.get()
    }

    /// Whether `name` has an owner on the bus (a service is there).
    public func hasOwner(_ name: String) -> Bool {
        let reply = try? call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)])
        return reply?.first?.bool == true
    }

    private static func text(_ r: Int32) -> String { String(cString: strerror(-r)) }

    // MARK: - Messages

    private static func append(_ value: DBusValue, to m: OpaquePointer?) -> Int32 {
        func basic<T: BitwiseCopyable>(_ type: String, _ v: T) -> Int32 {
            var v = v
            return sd_bus_message_append_basic(m, CChar(type.utf8.first!), &v)
        }
        func container(_ type: Character, _ contents: String, _ children: [DBusValue]) -> Int32 {
            var r = sd_bus_message_open_container(m, CChar(type.asciiValue!), contents)
            for c in children where r >= 0 { r = append(c, to: m) }
            return r >= 0 ? sd_bus_message_close_container(m) : r
        }
        switch value {
        case .byte(let v): return basic("y", v)
        case .bool(let v): return basic("b", Int32(v ? 1 : 0))
        case .int16(let v): return basic("n", v)
        case .uint16(let v): return basic("q", v)
        case .int32(let v): return basic("i", v)
        case .uint32(let v): return basic("u", v)
        case .int64(let v): return basic("x", v)
        case .uint64(let v): return basic("t", v)
        case .double(let v): return basic("d", v)
        case .string(let s), .objectPath(let s), .signature(let s):
            // For string types sd-bus takes the characters themselves, not a pointer to them.
            return s.withCString { sd_bus_message_append_basic(m, CChar(value.signature.utf8.first!), $0) }
        case .array(let element, let items): return container("a", element, items)
        case .dictEntry(let k, let v): return container("e", k.signature + v.signature, [k, v])
        case .structure(let fields): return container("r", fields.map(\.signature).joined(), fields)
        case .variant(let inner): return container("v", inner.signature, [inner])
        }
    }

    /// The next value of the message at its read position; `nil` at the end of it or of the container.
    private static func read(_ m: OpaquePointer?) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { return nil }
        let t = Character(Unicode.Scalar(UInt8(bitPattern: type)))
        func basic<T: BitwiseCopyable>(_ initial: T) -> T? {
            var v = initial
            return sd_bus_message_read_basic(m, type, &v) > 0 ? v : nil
        }
        switch t {
        case "a", "r", "e", "v":
            let inner = contents.map { String(cString: $0) } ?? ""
            guard sd_bus_message_enter_container(m, type, contents) >= 0 else { return nil }
            var children: [DBusValue] = []
            while let c = read(m) { children.append(c) }
            sd_bus_message_exit_container(m)
            switch t {
            case "a": return .array(inner, children)
            case "e": return children.count == 2 ? .dictEntry(children[0], children[1]) : nil
            case "v": return children.first.map { .variant($0) }
            default: return .structure(children)
            }
        case "y": return basic(UInt8(0)).map { .byte($0) }
        case "b": return basic(Int32(0)).map { .bool($0 != 0) }
        case "n": return basic(Int16(0)).map { .int16($0) }
        case "q": return basic(UInt16(0)).map { .uint16($0) }
        case "i", "h": return basic(Int32(0)).map { .int32($0) }
        case "u": return basic(UInt32(0)).map { .uint32($0) }
        case "x": return basic(Int64(0)).map { .int64($0) }
        case "t": return basic(UInt64(0)).map { .uint64($0) }
        case "d": return basic(Double(0)).map { .double($0) }
        case "s", "o", "g":
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, type, &p) > 0, let p else { return nil }
            let s = String(cString: p)
            return t == "s" ? .string(s) : t == "o" ? .objectPath(s) : .signature(s)
        default:
            _ = sd_bus_message_skip(m, String(t))
            return nil
        }
    }
}
