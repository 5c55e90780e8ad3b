import CZlib

/// An RGB picture in memory (8 bits per channel, rows top to bottom), with the little Upright
/// needs: PNG encoding (zlib's deflate, the only importer of CZlib), box downscaling and a
/// contact sheet of several pictures.
public struct Picture: Sendable, Equatable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, RGB.
    public private(set) var pixels: [UInt8]

    /// A picture of one colour.
    public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: pixels.count, by: 3) {
            pixels[i] = fill.r
            pixels[i + 1] = fill.g
            pixels[i + 2] = fill.b
        }
    }

    /// A picture from 4-byte pixels (`rgb0`, as mpv's software renderer writes them) with a stride.
    public init(rgb0 bytes: [UInt8], width: Int, height: Int, stride: Int) {
        self.width = width
        self.height = height
        var p = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let s = y * stride + x * 4, d = (y * width + x) * 3
                p[d] = bytes[s]
                p[d + 1] = bytes[s + 1]
                p[d + 2] = bytes[s + 2]
            }
        }
        pixels = p
    }

    /// A picture from a binary PPM file (P6, 8 bits); `nil` for anything else.
    public init?(ppm bytes: [UInt8]) {
        var fields: [Int] = [], i = 0
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "6") else { return nil }
        i = 2
        while fields.count < 3, i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 10 { i += 1 }
            } else if c >= 48 && c <= 57 {
                var v = 0
                while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
                    v = v * 10 + Int(bytes[i] - 48)
                    i += 1
                }
                fields.append(v)
                continue
            }
            i += 1
        }
        guard fields.count == 3, fields[2] == 255, i < bytes.count else { return nil }
        i += 1  // the one whitespace after the maximum value
        let (w, h) = (fields[0], fields[1])
        guard w > 0, h > 0, bytes.count - i >= w * h * 3 else { return nil }
        width = w
        height = h
        pixels = Array(bytes[i..<(i + w * h * 3)])
    }

    public var description: String { "\(width)×\(height) picture" }

    public func rgb(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// This picture shrunk by an integer `factor`, each pixel the mean of a factor × factor box.
    public func shrunk(by factor: Int) -> Picture {
        guard factor > 1 else { return self }
        var out = Picture(width: width / factor, height: height / factor)
        let n = factor * factor
        for y in 0..<out.height {
            for x in 0..<out.width {
                var sum = (0, 0, 0)
                for dy in 0..<factor {
                    for dx in 0..<factor {
                        let i = ((y * factor + dy) * width + x * factor + dx) * 3
                        sum.0 += Int(pixels[i])
                        sum.1 += Int(pixels[i + 1])
                        sum.2 += Int(pixels[i + 2])
                    }
                }
                let o = (y * out.width + x) * 3
                out.pixels[o] = UInt8(sum.0 / n)
                out.pixels[o + 1] = UInt8(sum.1 / n)
                out.pixels[o + 2] = UInt8(sum.2 / n)
            }
        }
        return out
    }

    /// Copies `other` in with its top-left corner at (x, y), clipped to this picture.
    public mutating func draw(_ other: Picture, at x: Int, _ y: Int) {
        for row in 0..<other.height where y + row >= 0 && y + row < height {
            for col in 0..<other.width where x + col >= 0 && x + col < width {
                let s = (row * other.width + col) * 3, d = ((y + row) * width + x + col) * 3
                pixels[d] = other.pixels[s]
                pixels[d + 1] = other.pixels[s + 1]
                pixels[d + 2] = other.pixels[s + 2]
            }
        }
    }

    /// The pictures in a grid of `columns`, each shrunk by `shrink`, with a margin between them.
    public static func contactSheet(_ pictures: [Picture], columns: Int, shrink: Int = 2, margin: Int = 12) -> Picture {
        let cells = pictures.map { $0.shrunk(by: shrink) }
        let cellWidth = cells.map(\.width).max() ?? 0, cellHeight = cells.map(\.height).max() ?? 0
        let cols = max(1, min(columns, cells.count)), rows = (cells.count + cols - 1) / cols
        var sheet = Picture(
            width: margin + cols * (cellWidth + margin), height: margin + rows * (cellHeight + margin),
            fill: (40, 40, 40))
        for (i, c) in cells.enumerated() {
            sheet.draw(c, at: margin + (i % cols) * (cellWidth + margin), margin + (i / cols) * (cellHeight + margin))
        }
        return sheet
    }

    /// The picture as a PNG file (8-bit RGB, no interlace, deflated by zlib).
    public func png() -> [UInt8] {
        var raw = [UInt8]()
        raw.reserveCapacity(height * (width * 3 + 1))
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += pixels[(y * width * 3)..<((y + 1) * width * 3)]
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // depth 8, RGB, deflate, no filter method, no interlace
        out += chunk("IHDR", header)
        out += chunk("IDAT", deflate(raw))
        out += chunk("IEND", [])
        return out
    }

    private func deflate(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { i in compress2(o.baseAddress, &length, i.baseAddress, uLong(data.count), 6) }
        }
        precondition(status == Z_OK, "zlib's compress2 failed with status \(status) on a buffer it sized itself")
        return Array(out[0..<Int(length)])
    }

    private func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let crc = (typeBytes + body).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return bigEndian(UInt32(body.count)) + typeBytes + body + bigEndian(UInt32(crc))
    }

    private func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
