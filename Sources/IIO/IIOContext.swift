import CIIO
import Glibc

/// An error from libiio: the call that failed and libiio's own message (which already names the errno).
public struct IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libiio call, for example `iio_create_context_from_uri("ip:10.0.0.5")`.
    public var call: String
    /// libiio's message for the error code.
    public var message: String
    /// The positive errno value.
    public var code: Int32

    public var description: String { "\(call) failed: \(message)" }

    /// Builds the error for a negative libiio return value or the current `errno`.
    static func from(_ call: String, code raw: Int32) -> IIOError {
        let code = raw < 0 ? -raw : raw
        var buffer = [CChar](repeating: 0, count: 256)
        iio_strerror(code, &buffer, buffer.count)
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return IIOError(call: call, message: message, code: code)
    }
}

/// A device as libiio lists it.
public struct IIODeviceInfo: Sendable, Hashable {
    /// The device id (`iio:device0`).
    public var id: String
    /// The device name (`accel_3d`), when it has one.
    public var name: String?
    /// The ids of its input and output channels (`accel_x`, ...), in libiio's order.
    public var channels: [String]
}

/// A libiio context: the local sysfs (`local:`), a network `iiod` (`ip:HOST`), or any other URI
/// libiio accepts. Owns the `iio_context` and destroys it in `deinit`.
public final class IIOContext {
    let handle: OpaquePointer

    /// Opens a context with `iio_create_context_from_uri`.
    public init(uri: String) throws(IIOError) {
        guard let ctx = iio_create_context_from_uri(uri) else {
            throw IIOError.from("iio_create_context_from_uri(\"\(uri)\")", code: errno)
        }
        handle = ctx
    }

    deinit { iio_context_destroy(handle) }

    /// The context's name (`local`, `network`, ...), from `iio_context_get_name`.
    public var name: String { String(cString: iio_context_get_name(handle)) }

    /// Every device in the context (`iio_context_get_devices_count` and friends).
    public var devices: [IIODeviceInfo] {
        (0..<iio_context_get_devices_count(handle)).compactMap { i in
            guard let dev = iio_context_get_device(handle, i) else { return nil }
            let channels = (0..<iio_device_get_channels_count(dev)).compactMap { c -> String? in
                guard let ch = iio_device_get_channel(dev, c) else { return nil }
                return String(cString: iio_channel_get_id(ch))
            }
            return IIODeviceInfo(
                id: String(cString: iio_device_get_id(dev)),
                name: iio_device_get_name(dev).map { String(cString: $0) },
                channels: channels)
        }
    }
}

/// The libiio version this program runs against, from `iio_library_get_version`.
public var iioLibraryVersion: String {
    var major: UInt32 = 0, minor: UInt32 = 0
    var tag = [CChar](repeating: 0, count: 8)
    iio_library_get_version(&major, &minor, &tag)
    return "\(major).\(minor)"
}
