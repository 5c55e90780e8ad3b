import Foundation
import Glibc
import Testing

@testable import MPV

/// The lines between Upright and its mpv process, read from a real socket pair.
@Suite("The wire's lines")
struct LineReaderTests {
    /// Writes `bytes` into one end of a socket pair from another thread, then closes it.
    static func reader(for bytes: [UInt8], longest: Int = LineReader.longest) -> LineReader {
        var pair: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let writer = pair[1]
        Thread.detachNewThread {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(writer, $0.baseAddress, min($0.count, 7000)) }
                guard n > 0 else { break }
                offset += n
            }
            close(writer)
        }
        return LineReader(fd: pair[0], longest: longest)
    }

    @Test func linesOfEverySizeComeBackWhole() {
        // Lines from empty to several reads' worth (a read takes 64 KiB), in written pieces of 7000.
        let sizes = [0, 1, 100, 65_535, 65_536, 65_537, 300_000, 5, 1_000_000]
        let lines = sizes.enumerated().map { i, n in [UInt8](repeating: UInt8(65 + i), count: n) }
        var reader = Self.reader(for: lines.flatMap { $0 + [0x0A] })
        for line in lines { #expect(reader.next() == line) }
        #expect(reader.next() == nil)
        close(reader.fd)
    }

    @Test func aLineLongerThanTheLongestEndsTheStream() {
        var reader = Self.reader(
            for: Array("short\n".utf8) + [UInt8](repeating: 0x41, count: 500_000), longest: 200_000)
        #expect(reader.next() == Array("short".utf8))
        #expect(reader.next() == nil)
        close(reader.fd)
    }
}
