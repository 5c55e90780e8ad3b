import CMPV
import Glibc

/// An error from libmpv: the call that failed and mpv's own message (`mpv_error_string`).
public struct MPVError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String
    public var message: String
    public var code: Int32

    public var description: String { "\(call) failed: \(message)" }

    /// Throws for a negative libmpv status code.
    static func check(_ status: Int32, _ call: @autoclosure () -> String) throws(MPVError) {
        guard status < 0 else { return }
        throw MPVError(call: call(), message: String(cString: mpv_error_string(status)), code: status)
    }
}

/// An owned, initialized libmpv client (`mpv_create` + `mpv_initialize`), destroyed with
/// `mpv_terminate_destroy` in `deinit`.
public final class MPVHandle {
    let handle: OpaquePointer

    /// Creates a player with `options` set before `mpv_initialize` (for example `vo=null`).
    public init(options: [(String, String)] = []) throws(MPVError) {
        // mpv parses numbers with the C locale and refuses to start under another LC_NUMERIC.
        setlocale(LC_NUMERIC, "C")
        guard let h = mpv_create() else {
            throw MPVError(call: "mpv_create()", message: "out of memory or bad locale", code: -1)
        }
        handle = h
        for (name, value) in options {
            try MPVError.check(mpv_set_option_string(h, name, value), "mpv_set_option_string(\(name)=\(value))")
        }
        try MPVError.check(mpv_initialize(h), "mpv_initialize()")
    }

    deinit { mpv_terminate_destroy(handle) }

    /// Reads a property as a string (`mpv_get_property_string`); `nil` when it is unavailable.
    public func string(_ property: String) -> String? {
        guard let p = mpv_get_property_string(handle, property) else { return nil }
        defer { mpv_free(p) }
        return String(cString: p)
    }
}

/// The libmpv client API version as "major.minor" (`mpv_client_api_version`).
public var mpvClientAPIVersion: String {
    let v = mpv_client_api_version()
    return "\(v >> 16).\(v & 0xffff)"
}
