import Playback
import Testing

@Suite("Hardware decoding per board")
struct HardwareDecodingTests {
    /// The device tree's model strings of the boards (as `/proc/device-tree/model` reads, with its NUL).
    @Test(
        arguments: [
            ("Raspberry Pi 4 Model B Rev 1.4\0", "Raspberry Pi 4", "drm-copy,v4l2m2m-copy", "h264,hevc"),
            ("Raspberry Pi 4 Model B Rev 1.5\0", "Raspberry Pi 4", "drm-copy,v4l2m2m-copy", "h264,hevc"),
            ("Raspberry Pi 400 Rev 1.0\0", "Raspberry Pi 4", "drm-copy,v4l2m2m-copy", "h264,hevc"),
            ("Raspberry Pi Compute Module 4 Rev 1.0\0", "Raspberry Pi 4", "drm-copy,v4l2m2m-copy", "h264,hevc"),
            ("Raspberry Pi 5 Model B Rev 1.0\0", "Raspberry Pi 5", "drm-copy", "hevc"),
            ("Raspberry Pi 500 Rev 1.0\0", "Raspberry Pi 5", "drm-copy", "hevc"),
            ("Raspberry Pi Compute Module 5 Rev 1.0\0", "Raspberry Pi 5", "drm-copy", "hevc"),
            ("Raspberry Pi 3 Model B Plus Rev 1.3\0", "other", "auto-safe", nil),
            ("Raspberry Pi Zero 2 W Rev 1.0\0", "other", "auto-safe", nil),
            ("Rockchip RK3588 EVB1 LP4 V10 Board\0", "other", "auto-safe", nil),
        ] as [(String, String, String, String?)])
    func eachBoardsModelGetsItsDecoders(model: String, board: String, hwdec: String, codecs: String?) {
        let choice = HardwareDecoding.choice(model: model)
        #expect(choice.board == board)
        #expect(choice.hwdec == hwdec)
        #expect(choice.codecs == codecs)
    }

    @Test func aPCHasNoDeviceTree() {
        #expect(HardwareDecoding.choice(model: nil) == HardwareDecoding.other)
        #expect(HardwareDecoding.choice(model: "") == HardwareDecoding.other)
    }

    /// A model that only starts like a board's name is another board.
    @Test func aNameIsMatchedWhole() {
        #expect(HardwareDecoding.choice(model: "Raspberry Pi 45 Model Z").board == "other")
    }
}
