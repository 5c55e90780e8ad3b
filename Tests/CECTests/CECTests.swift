import CEC
import Foundation
import Testing

/// HDMI-CEC: the messages as bytes (CEC 1.4), and the adapter's refusals in words. No CEC
/// adapter exists on the test machines: sending is not exercised live.
@Suite("HDMI-CEC")
struct CECTests {
    @Test func theMessagesAreCECs() {
        // From a playback device (logical address 4) to the TV (0), and broadcast (F).
        #expect(CECCommand.standby.bytes(from: 4) == [0x40, 0x36])
        #expect(CECCommand.imageViewOn.bytes(from: 4) == [0x40, 0x04])
        #expect(CECCommand.activeSource(physicalAddress: 0x1000).bytes(from: 4) == [0x4F, 0x82, 0x10, 0x00])
        #expect(CECCommand.activeSource(physicalAddress: 0x2130).bytes(from: 8) == [0x8F, 0x82, 0x21, 0x30])
        #expect(cecAddressText(0x2130) == "2.1.3.0")
    }

    @Test func adaptersAreListedInNumberOrder() throws {
        let dir = NSTemporaryDirectory() + "cec-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["cec10", "cec1", "cec0", "cecx", "video0"] {
            _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: nil)
        }
        #expect(CECAdapter.present(in: dir) == [dir + "/cec0", dir + "/cec1", dir + "/cec10"])
    }

    @Test func aDeviceThatIsNotAnAdapterSaysSo() {
        #expect(throws: CECError("/dev/null", "not a CEC adapter")) { try CECAdapter(path: "/dev/null") }
        #expect(throws: CECError("/dev/cec-none", "No such file or directory")) {
            try CECAdapter(path: "/dev/cec-none")
        }
    }
}
