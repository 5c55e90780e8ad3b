import Foundation
import Picture
import Testing

@Suite("Pictures: PNG out, PPM in, contact sheets")
struct PictureTests {
    func sample() -> Picture {
        var p = Picture(width: 4, height: 2, fill: (10, 20, 30))
        p.draw(Picture(width: 2, height: 1, fill: (255, 0, 0)), at: 1, 1)
        return p
    }

    @Test func pngDecodesToTheSamePixels() throws {
        let p = sample()
        let path = NSTemporaryDirectory() + "upright-picture-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(p.png()))
        // An independent decoder: Python's zlib and the PNG chunk layout (CRCs checked).
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = [
            "python3", "-c",
            """
            import struct, sys, zlib
            d = open(sys.argv[1], 'rb').read()
            assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            i, idat, ihdr = 8, b'', None
            while i < len(d):
                n, = struct.unpack('>I', d[i:i+4]); t = d[i+4:i+8]; body = d[i+8:i+8+n]
                assert struct.unpack('>I', d[i+8+n:i+12+n])[0] == zlib.crc32(t + body)
                if t == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
                if t == b'IDAT': idat += body
                i += 12 + n
            w, h = ihdr[0], ihdr[1]
            raw = zlib.decompress(idat)
            rows = [raw[y*(w*3+1)+1:(y+1)*(w*3+1)] for y in range(h)]
            print(w, h, b''.join(rows).hex())
            """, path,
        ]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        let hex = p.pixels.map { String(format: "%02x", $0) }.joined()
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == "4 2 \(hex)")
    }

    @Test func ppmIsRead() throws {
        let p = sample()
        let ppm = Array("P6\n# a comment\n4 2\n255\n".utf8) + p.pixels
        #expect(Picture(ppm: ppm) == p)
        #expect(Picture(ppm: Array("P3\n1 1\n255\n0 0 0\n".utf8)) == nil)
        #expect(Picture(ppm: Array("P6\n4 2\n255\n".utf8) + [1, 2, 3]) == nil)  // too short
    }

    @Test func shrinkingAveragesAndTheSheetHoldsEveryPicture() {
        var p = Picture(width: 4, height: 4, fill: (0, 0, 0))
        p.draw(Picture(width: 1, height: 1, fill: (200, 100, 40)), at: 0, 0)
        let small = p.shrunk(by: 2)
        #expect(small.width == 2 && small.height == 2)
        #expect(small.rgb(0, 0) == (50, 25, 10))
        let sheet = Picture.contactSheet(Array(repeating: p, count: 7), columns: 5, shrink: 2, margin: 3)
        #expect(sheet.width == 3 + 5 * (2 + 3) && sheet.height == 3 + 2 * (2 + 3))
        #expect(sheet.rgb(3, 3) == (50, 25, 10))  // the first picture's corner
        #expect(sheet.rgb(0, 0) == (40, 40, 40))  // the margin
    }
}
