import CIIO
import Foundation
import Glibc

/// An error from libiio: what failed (the call, and the device and attribute when there is one)
/// and libiio's own message, which already names the errno.
public struct IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, for example `iio_create_context_from_uri("ip:10.0.0.5")` or
    /// `reading attribute 'scale' of channel accel_x on iio:device0 (accel_3d)`.
    public var call: String
    /// libiio's message for the error code.
    public var message: String
    /// The positive errno value (0 for a problem libiio did not report, such as a missing channel).
    public var code: Int32

    public init(call: String, message: String, code: Int32) {
        self.call = call
        self.message = message
        self.code = code
    }

    public var description: String { "\(call) failed: \(message)" }

    /// The error for a negative libiio return value or an `errno`, with `iio_strerror`'s text.
    static func from(_ call: String, code raw: Int32) -> IIOError {
        let code = raw < 0 ? -raw : raw
        var buffer = [CChar](repeating: 0, count: 256)
        iio_strerror(code, &buffer, buffer.count)
        return IIOError(
            call: call,
            message: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
            code: code)
    }
}

/// A device as libiio lists it.
public struct IIODeviceInfo: Sendable, Hashable {
    /// The device id (`iio:device0`).
    public var id: String
    /// The device name (`accel_3d`), when it has one.
    public var name: String?
    /// The ids of its input channels (`accel_x`, ...), in libiio's order.
    public var channels: [String]

    /// `iio:device0 (accel_3d)`, for messages.
    public var label: String { name.map { "\(id) (\($0))" } ?? id }
}

/// A libiio context: the local sysfs (`local:`), a network `iiod` (`ip:HOST`), or any other URI
/// libiio 0.24 accepts (`usb:`, `serial:`, `xml:`). Owns the `iio_context` and destroys it in `deinit`.
public final class IIOContext {
    let handle: OpaquePointer

    /// Opens a context with `iio_create_context_from_uri`.
    public init(uri: String) throws(IIOError) {
        errno = 0
        guard let ctx = iio_create_context_from_uri(uri) else {
            throw IIOError.from("iio_create_context_from_uri(\"\(uri)\")", code: errno == 0 ? ENODEV : errno)
        }
        handle = ctx
    }

    deinit { iio_context_destroy(handle) }

    /// The context's name (`local`, `network`, ...), from `iio_context_get_name`.
    public var name: String { String(cString: iio_context_get_name(handle)) }

    /// Sets the timeout of blocking operations (`iio_context_set_timeout`), in milliseconds; 0 waits forever.
    public func setTimeout(milliseconds: UInt32) throws(IIOError) {
        let status = iio_context_set_timeout(handle, milliseconds)
        if status < 0 { throw IIOError.from("iio_context_set_timeout(\(milliseconds))", code: status) }
    }

    /// Every device in the context.
    public var devices: [IIODeviceInfo] {
        (0..<iio_context_get_devices_count(handle)).compactMap { i in
            iio_context_get_device(handle, i).map { IIODevice(context: self, handle: $0).info }
        }
    }

    /// The device with this id or name (`iio_context_find_device`), or `nil`.
    public func device(_ idOrName: String) -> IIODevice? {
        iio_context_find_device(handle, idOrName).map { IIODevice(context: self, handle: $0) }
    }

    /// The device at this position in ``devices``, or `nil`.
    public func device(at index: Int) -> IIODevice? {
        guard index >= 0, index < Int(iio_context_get_devices_count(handle)) else { return nil }
        return iio_context_get_device(handle, UInt32(index)).map { IIODevice(context: self, handle: $0) }
    }
}

/// A device of a context. It keeps its context alive.
public final class IIODevice {
    let context: IIOContext
    let handle: OpaquePointer

    init(context: IIOContext, handle: OpaquePointer) {
        self.context = context
        self.handle = handle
    }

    public var id: String { String(cString: iio_device_get_id(handle)) }
    public var name: String? { iio_device_get_name(handle).map { String(cString: $0) } }

    public var info: IIODeviceInfo {
        let channels = (0..<iio_device_get_channels_count(handle)).compactMap { c -> String? in
            guard let ch = iio_device_get_channel(handle, c), !iio_channel_is_output(ch) else { return nil }
            return String(cString: iio_channel_get_id(ch))
        }
        return IIODeviceInfo(id: id, name: name, channels: channels)
    }

    /// The input channel with this id (`accel_x`), or `nil` (`iio_device_find_channel`).
    public func channel(_ id: String) -> IIOChannel? {
        iio_device_find_channel(handle, id, false).map { IIOChannel(device: self, handle: $0) }
    }
}

/// An input channel of a device. It keeps its device (and context) alive.
public final class IIOChannel {
    let device: IIODevice
    let handle: OpaquePointer

    init(device: IIODevice, handle: OpaquePointer) {
        self.device = device
        self.handle = handle
    }

    public var id: String { String(cString: iio_channel_get_id(handle)) }

    /// The channel's attribute names (`raw`, `scale`, `mount_matrix`, ...), shared ones included.
    public var attributes: [String] {
        (0..<iio_channel_get_attrs_count(handle)).compactMap {
            iio_channel_get_attr(handle, $0).map { String(cString: $0) }
        }
    }

    /// True when the channel has this attribute (`iio_channel_find_attr`).
    public func has(_ attribute: String) -> Bool { iio_channel_find_attr(handle, attribute) != nil }

    /// Reads an attribute as text (`iio_channel_attr_read`).
    public func read(_ attribute: String) throws(IIOError) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = iio_channel_attr_read(handle, attribute, &buffer, buffer.count)
        if n < 0 { throw IIOError.from(describe("reading", attribute), code: Int32(truncatingIfNeeded: n)) }
        // Trim ASCII white space around the value (sysfs ends it with a newline).
        var lo = 0, hi = buffer.firstIndex(of: 0) ?? buffer.count
        func space(_ c: CChar) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }
        while lo < hi, space(buffer[lo]) { lo += 1 }
        while hi > lo, space(buffer[hi - 1]) { hi -= 1 }
        return String(decoding: buffer[lo..<hi].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads an attribute as a finite number, without building a string on the way.
    ///
    /// - Throws: ``IIOError`` when the read fails or the text is not a finite number (code `EINVAL`,
    ///   the message quoting the text).
    public func readDouble(_ attribute: String) throws(IIOError) -> Double {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer throws(IIOError) -> Double in
            let n = iio_channel_attr_read(handle, attribute, buffer.baseAddress, buffer.count)
            if n < 0 { throw IIOError.from(describe("reading", attribute), code: Int32(truncatingIfNeeded: n)) }
            return try parseNumber(buffer.baseAddress!, attribute: attribute)
        }
    }

    /// The number in a NUL-terminated attribute text; white space may follow it (sysfs ends a value
    /// with a newline), nothing else.
    func parseNumber(_ text: UnsafeMutablePointer<CChar>, attribute: String) throws(IIOError) -> Double {
        var end: UnsafeMutablePointer<CChar>?
        let v = strtod(text, &end)
        var rest = end ?? text
        while rest.pointee == 0x20 || rest.pointee == 0x0A || rest.pointee == 0x09 || rest.pointee == 0x0D {
            rest += 1
        }
        if end == text || rest.pointee != 0 || !v.isFinite {
            let quoted = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            throw IIOError(call: describe("reading", attribute), message: "'\(quoted)' is not a number", code: EINVAL)
        }
        return v
    }

    /// A reader of one numeric attribute, for reading it again and again (the per-sample path of a
    /// poller); see ``IIOValueReader``.
    public func valueReader(_ attribute: String) -> IIOValueReader {
        IIOValueReader(channel: self, attribute: attribute)
    }

    /// Writes an attribute (`iio_channel_attr_write`).
    public func write(_ attribute: String, _ value: String) throws(IIOError) {
        let n = iio_channel_attr_write(handle, attribute, value)
        if n < 0 {
            throw IIOError.from(describe("writing '\(value)' to", attribute), code: Int32(truncatingIfNeeded: n))
        }
    }

    func describe(_ verb: String, _ attribute: String) -> String {
        "\(verb) attribute '\(attribute)' of channel \(id) on \(device.info.label)"
    }
}

/// The libiio version this program runs against, from `iio_library_get_version`.
public var iioLibraryVersion: String {
    var major: UInt32 = 0, minor: UInt32 = 0
    var tag = [CChar](repeating: 0, count: 8)
    iio_library_get_version(&major, &minor, &tag)
    return "\(major).\(minor)"
}
