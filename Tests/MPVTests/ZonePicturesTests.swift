import Foundation
import Testing

@testable import MPV

/// The zone pictures kept once drawn: by file, change and size; the least recently used go first.
@Suite struct ZonePicturesTests {
    @Test func aFilesPictureIsKeptByItsChangeAndSizeAndTheOldestGoFirst() throws {
        let path = NSTemporaryDirectory() + "zone-\(UUID().uuidString.prefix(8)).png"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(ZonePictures.key("http://cms/a.png", width: 10, height: 10, options: [:]) == nil)
        let key = try #require(ZonePictures.key(path, width: 640, height: 360, options: ["panscan": "1"]))
        #expect(key != ZonePictures.key(path, width: 320, height: 360, options: ["panscan": "1"]))
        #expect(key != ZonePictures.key(path, width: 640, height: 360, options: [:]))
        let kept = ZonePictures()
        let big = ZonePictures.limit / 4  // four fill it
        for n in 0..<4 { kept.keep([UInt8](repeating: UInt8(n), count: big), for: "k\(n)") }
        #expect(kept.pixels("k0")?.first == 0, "all four kept; k0 now the most recent")
        kept.keep([UInt8](repeating: 9, count: big), for: "k4")
        #expect(kept.pixels("k1") == nil, "the least recently used went")
        #expect(kept.pixels("k0") != nil && kept.pixels("k4") != nil)
        // The file changed: another key (its picture is drawn again).
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: path))
        #expect(ZonePictures.key(path, width: 640, height: 360, options: ["panscan": "1"]) != key)
    }
}
