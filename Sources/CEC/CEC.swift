import CLinuxCEC
import Foundation
import Glibc

/// Why an HDMI-CEC adapter could not do what was asked, naming the device.
public struct CECError: Error, CustomStringConvertible, Sendable, Hashable {
    public let description: String
    public init(_ path: String, _ text: String) { description = "HDMI-CEC \(path): \(text)" }
}

/// The messages Upright sends over HDMI-CEC (HDMI 1.4, CEC 1.4 section 13): the TV to standby,
/// and the TV on with Upright's input shown.
public enum CECCommand: Sendable, Hashable {
    /// `<Standby>` (0x36), to the TV.
    case standby
    /// `<Image View On>` (0x04), to the TV: it leaves standby.
    case imageViewOn
    /// `<Active Source>` (0x82), to all: the TV shows the input at this physical address.
    case activeSource(physicalAddress: UInt16)

    /// The message's bytes from logical address `initiator`: the header (initiator, destination),
    /// the opcode, the operands.
    public func bytes(from initiator: UInt8) -> [UInt8] {
        let tv: UInt8 = 0x0, everyone: UInt8 = 0xF
        switch self {
        case .standby: return [initiator << 4 | tv, 0x36]
        case .imageViewOn: return [initiator << 4 | tv, 0x04]
        case .activeSource(let address):
            return [initiator << 4 | everyone, 0x82, UInt8(address >> 8), UInt8(address & 0xFF)]
        }
    }

    var name: String {
        switch self {
        case .standby: "<Standby>"
        case .imageViewOn: "<Image View On>"
        case .activeSource: "<Active Source>"
        }
    }
}

/// A physical address as HDMI writes it: 0x1000 is "1.0.0.0".
public func cecAddressText(_ address: UInt16) -> String {
    [12, 8, 4, 0].map { String((address >> UInt16($0)) & 0xF) }.joined(separator: ".")
}

/// One HDMI-CEC adapter of the kernel's CEC framework (`/dev/cecN`): the Raspberry Pi's HDMI
/// ports, many Intel and AMD GPUs' DisplayPort-to-HDMI, USB adapters (Pulse-Eight).
///
/// Its calls block for the time of a CEC transmission (tens of milliseconds, a second at most):
/// call them off the cooperative pool.
public final class CECAdapter {
    public let path: String
    /// The kernel driver's name and the adapter's (`CEC_ADAP_G_CAPS`).
    public let driver: String
    public let name: String
    private let fd: Int32
    private let capabilities: UInt32

    /// The adapters present: `/dev/cec0`, `/dev/cec1` …
    public static func present(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("cec") && $0.dropFirst(3).allSatisfy(\.isNumber) && $0.count > 3 }
            .sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
            .map { directory + "/" + $0 }
    }

    /// The adapter `choice` names (`screen.cec`): `auto` the first present (`nil` when there is
    /// none), `off` none, else the path given.
    public static func chosen(_ choice: String) -> String? {
        switch choice {
        case "off": nil
        case "auto": present().first
        default: choice
        }
    }

    /// Opens the adapter and asks what it is; fails, saying why, when it is not a CEC adapter or
    /// cannot send.
    public init(path: String) throws(CECError) {
        // Every check on a local descriptor, closed here on failure: once all the properties are
        // set, a throw would run deinit, which closes `fd` (a second close could hit a descriptor
        // opened since by another thread).
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            let e = errno
            let hint = e == EACCES ? ": add the user Upright runs as to the 'video' group" : ""
            throw CECError(path, String(cString: strerror(e)) + hint)
        }
        var caps = cec_caps()
        guard ioctl(descriptor, upright_cec_adap_g_caps(), &caps) == 0 else {
            let e = errno
            close(descriptor)
            throw CECError(path, e == ENOTTY ? "not a CEC adapter" : String(cString: strerror(e)))
        }
        let driver = Self.text(&caps.driver)
        guard caps.capabilities & UInt32(CEC_CAP_TRANSMIT) != 0 else {
            close(descriptor)
            throw CECError(path, "the adapter (\(driver)) cannot send messages")
        }
        self.path = path
        self.driver = driver
        name = Self.text(&caps.name)
        capabilities = caps.capabilities
        fd = descriptor
    }

    deinit { close(fd) }

    private static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The adapter's physical address (`CEC_ADAP_G_PHYS_ADDR`); `nil` while no HDMI sink is
    /// connected (or the sink gave none).
    public func physicalAddress() throws(CECError) -> UInt16? {
        var address: UInt16 = 0
        guard ioctl(fd, upright_cec_adap_g_phys_addr(), &address) == 0 else {
            throw CECError(path, "cannot read its physical address: \(String(cString: strerror(errno)))")
        }
        return address == UInt16(CEC_PHYS_ADDR_INVALID) ? nil : address
    }

    /// The logical address Upright sends from: the adapter's first, or a playback device's
    /// claimed now when the adapter has none and lets its user claim one.
    public func logicalAddress() throws(CECError) -> UInt8 {
        var addresses = cec_log_addrs()
        guard ioctl(fd, upright_cec_adap_g_log_addrs(), &addresses) == 0 else {
            throw CECError(path, "cannot read its logical addresses: \(String(cString: strerror(errno)))")
        }
        if addresses.num_log_addrs > 0, addresses.log_addr.0 != UInt8(CEC_LOG_ADDR_INVALID) {
            return addresses.log_addr.0
        }
        guard capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0 else {
            throw CECError(path, "no logical address, and the driver (\(driver)) assigns them itself")
        }
        var claim = cec_log_addrs()
        claim.cec_version = UInt8(CEC_OP_CEC_VERSION_1_4)
        claim.num_log_addrs = 1
        claim.vendor_id = UInt32(CEC_VENDOR_ID_NONE)
        claim.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
        claim.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
        claim.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
        withUnsafeMutableBytes(of: &claim.osd_name) { buffer in
            for (i, byte) in "Upright".utf8.enumerated() { buffer[i] = byte }
        }
        guard ioctl(fd, upright_cec_adap_s_log_addrs(), &claim) == 0 else {
            throw CECError(path, "cannot claim a logical address: \(String(cString: strerror(errno)))")
        }
        guard claim.num_log_addrs > 0, claim.log_addr.0 != UInt8(CEC_LOG_ADDR_INVALID) else {
            throw CECError(path, "no logical address could be claimed (is an HDMI sink connected?)")
        }
        return claim.log_addr.0
    }

    /// Sends `command` and waits for the sink's acknowledgement (`CEC_TRANSMIT`).
    public func send(_ command: CECCommand) throws(CECError) {
        let bytes = command.bytes(from: try logicalAddress())
        var message = cec_msg()
        message.len = UInt32(bytes.count)
        message.timeout = 0
        withUnsafeMutableBytes(of: &message.msg) { buffer in
            for (i, byte) in bytes.enumerated() { buffer[i] = byte }
        }
        guard ioctl(fd, upright_cec_transmit(), &message) == 0 else {
            let e = errno
            let why =
                e == ENONET
                ? "no logical address yet (is an HDMI sink connected?)" : String(cString: strerror(e))
            throw CECError(path, "cannot send \(command.name): \(why)")
        }
        let status = UInt32(message.tx_status)
        let broadcast = bytes[0] & 0xF == 0xF
        guard status & UInt32(CEC_TX_STATUS_OK) != 0 || (broadcast && status & UInt32(CEC_TX_STATUS_NACK) != 0) else {
            if status & UInt32(CEC_TX_STATUS_NACK) != 0 {
                throw CECError(
                    path,
                    "the TV did not acknowledge \(command.name): is HDMI-CEC on in its settings (Anynet+, "
                        + "Bravia Sync, SimpLink, Viera Link)?")
            }
            throw CECError(path, "\(command.name) was not sent (transmit status 0x\(String(status, radix: 16)))")
        }
    }

    /// The TV on, showing this input (`<Image View On>`, then `<Active Source>`), or to standby.
    public func power(_ on: Bool) throws(CECError) {
        guard on else {
            try send(.standby)
            return
        }
        try send(.imageViewOn)
        guard let address = try physicalAddress() else {
            throw CECError(path, "no physical address: is an HDMI sink connected?")
        }
        try send(.activeSource(physicalAddress: address))
    }
}
