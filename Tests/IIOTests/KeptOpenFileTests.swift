import Foundation
import Testing

@testable import IIO

/// The kept-open reading of a poller's value files, on the real sysfs and on plain files.
@Suite("A value file kept open")
struct KeptOpenFileTests {
    func text(_ file: KeptOpenFile) -> (code: Int32, text: String) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            let code = file.read(into: buffer)
            return (
                code,
                code == 0 ? String(cString: buffer.baseAddress!).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            )
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/sys/class/net/lo/statistics/rx_bytes")))
    func sysfsGivesTheValueAnewAtEachRead() throws {
        // A counter that moves when the test sends itself a packet: read at offset 0 on the same
        // open file, sysfs shows the new value.
        let file = KeptOpenFile(path: "/sys/class/net/lo/statistics/rx_bytes")
        let before = try #require(Int(text(file).text))
        let s = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(s) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(9).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let payload = [UInt8](repeating: 0x55, count: 1000)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(s, payload, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(sent == 1000)
        let after = try #require(Int(text(file).text))
        #expect(after >= before + 1000)
    }

    @Test func aPlainFileChangedInPlaceReplacedAndRemoved() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("upright-kept-\(UUID().uuidString)")
            .path
        defer { unlink(path) }
        try "100\n".write(toFile: path, atomically: false, encoding: .utf8)
        let file = KeptOpenFile(path: path, checkInterval: 0)
        #expect(text(file) == (0, "100"))
        // Written in place: the open file shows it.
        let h = try #require(FileHandle(forWritingAtPath: path))
        try h.write(contentsOf: Data("200\n".utf8))
        try h.close()
        #expect(text(file) == (0, "200"))
        // Replaced by another file under the same name: opened again.
        try "300\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text(file) == (0, "300"))
        // Gone: an error, as opening it would be; back: read again.
        unlink(path)
        #expect(text(file).code == ENOENT)
        try "400\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text(file) == (0, "400"))
    }

    @Test func aMissingFileIsTheOpenError() {
        let file = KeptOpenFile(path: "/nonexistent/in_accel_x_raw")
        #expect(text(file).code == ENOENT)
    }
}
