import Confinement
import Foundation
import Glibc
import Testing

@testable import MPV

/// The messages between Upright and its mpv process: every kind written and read back, frames read
/// from a real socket pair, and bytes that are not a message refused without a crash.
@Suite("The wire to mpv's process")
struct MPVWireTests {
    /// Writes `bytes` into one end of a socket pair from another thread, then closes it.
    static func reader(for bytes: [UInt8], longest: Int = FrameReader.longest) -> FrameReader {
        var pair: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let writer = pair[1]
        Thread.detachNewThread {
            var offset = 0
            while offset < bytes.count {
                // A reader that gave up has closed its end: no SIGPIPE for the test process.
                let n = bytes[offset...].withUnsafeBytes {
                    send(writer, $0.baseAddress, min($0.count, 7000), Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { break }
                offset += n
            }
            close(writer)
        }
        return FrameReader(fd: pair[0], longest: longest)
    }

    static func framed(_ message: [UInt8]) -> [UInt8] {
        var length = UInt32(message.count).littleEndian
        return withUnsafeBytes(of: &length) { Array($0) } + message
    }

    static let error = MPVError(call: "mpv_command(loadfile x)", message: "invalid parameter ✗", code: -4)

    static let messages: [MPVWire.Message] = [
        .started(nil, confined: nil), .started(error, confined: nil),
        .started(nil, confined: "confined by no_new_privs, a seccomp filter, Landlock (ABI 7)"),
        .started(error, confined: "not confined; no_new_privs: Operation not permitted"),
        .reply(id: 1, .done), .reply(id: Int.max, .value(.string("sway\nüñí"))), .reply(id: 2, .value(.flag(true))),
        .reply(id: 3, .value(.int64(Int64.min))), .reply(id: 4, .value(.double(-0.0))),
        .reply(id: 5, .value(.double(.infinity))), .reply(id: 6, .string(nil)), .reply(id: 7, .string("")),
        .reply(id: 8, .frame(width: 2, height: 1, stride: 8, pixels: [0, 1, 2, 255, 4, 5, 6, 7])),
        .reply(id: 9, .failed(error)),
        .event(.startFile(playlistEntry: 3)), .event(.fileLoaded),
        .event(.endFile(reason: "error", error: "no audio or video data played", playlistEntry: 3)),
        .event(.endFile(reason: "eof", error: nil, playlistEntry: -1)), .event(.playbackRestart),
        .event(.videoReconfigured), .event(.idle), .event(.propertyChange(name: "osd-width", value: .int64(1280))),
        .event(.propertyChange(name: "time-pos", value: nil)),
        .event(.clientMessage(["upright-hotkey", "fullscreen"])), .event(.clientMessage([])),
        .event(.log(prefix: "vo/wlshm", level: "warn", text: "a line\n")), .event(.shutdown),
        .event(.other("audio-reconfig")),
    ]

    static let requests: [MPVWire.Call] = [
        .get("osd-width", .int64), .get("pause", .flag), .get("path", .string), .get("speed", .double),
        .set("pause", .flag(false)), .set("speed", .double(1.0005)), .set("video-rotate", .int64(270)),
        .set("vf", .string("")), .string("mpv-version"), .observe("osd-height", .int64),
        .command(["loadfile", "/srv/clip one.mkv", "replace"]), .command([]), .screenshot("window"), .quit,
        .probeLength("/srv/wall clip.mkv", timeout: 2.5),
    ]

    @Test func everyMessageComesBackAsWritten() {
        for message in Self.messages {
            let frame = message.frame
            #expect(Array(frame[4...]).count == Int(frame[0]) | Int(frame[1]) << 8 | Int(frame[2]) << 16)
            #expect(MPVWire.Message(Array(frame[4...])) == message)
        }
        for (i, call) in Self.requests.enumerated() {
            let request = MPVWire.Request(id: i * 7919, call: call)
            #expect(MPVWire.Request(Array(request.frame[4...])) == request)
        }
        let start = MPVWire.Start(
            options: [("vo", "wlshm"), ("ao", "null"), ("vo", "gpu"), ("title", "")],
            environment: ["WAYLAND_DISPLAY": "wayland-1", "EMPTY": "", "LANG": "C.UTF-8"])
        #expect(MPVWire.Start(Array(start.frame[4...])) == start)
        var confined = start
        confined.confinement = ConfinementPolicy(
            readable: ["/usr", "/srv/clips with spaces"], writable: ["/run/upright"], devices: [])
        #expect(MPVWire.Start(Array(confined.frame[4...])) == confined)
        #expect(MPVWire.Start(Array(confined.frame[4...])) != start)
    }

    @Test func aDoubleKeepsEveryBit() {
        for d in [Double.nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, -3e-300] {
            let frame = MPVWire.Message.reply(id: 1, .value(.double(d))).frame
            guard case .reply(_, .value(.double(let back)))? = MPVWire.Message(Array(frame[4...])) else {
                Issue.record("\(d) did not come back")
                continue
            }
            #expect(back.bitPattern == d.bitPattern)
        }
    }

    @Test func aMessageCutShortOrWithMoreIsRefused() {
        for message in Self.messages {
            let body = Array(message.frame[4...])
            for cut in 0..<body.count { #expect(MPVWire.Message(Array(body[..<cut])) == nil) }
            #expect(MPVWire.Message(body + [0]) == nil)
        }
    }

    @Test func randomBytesNeverCrashTheReader() {
        // Counts, tags and lengths of every size: read as a message of any kind, refused or not,
        // and never read past their end.
        var generator = SystemRandomNumberGenerator()
        for n in 0..<3000 {
            let bytes = (0..<(n % 64)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = MPVWire.Message(bytes)
            _ = MPVWire.Request(bytes)
            _ = MPVWire.Start(bytes)
        }
        // A count that claims more than the message holds.
        var w = WireWriter()
        w.byte(1)
        w.int(1)
        w.byte(3)
        w.int(1)
        w.int(1)
        w.int(4)
        w.int(Int64.max)
        #expect(MPVWire.Message(Array(w.frame[4...])) == nil)
    }

    @Test func framesOfEverySizeComeBackWhole() {
        // Frames from empty to several reads' worth (a read takes 64 KiB), in written pieces of 7000.
        let sizes = [0, 1, 100, 65_531, 65_532, 65_537, 300_000, 5, 1_000_000]
        let messages = sizes.enumerated().map { i, n in [UInt8](repeating: UInt8(65 + i), count: n) }
        var reader = Self.reader(for: messages.flatMap(Self.framed))
        for message in messages { #expect(reader.next() == message) }
        #expect(reader.next() == nil)
        close(reader.fd)
    }

    @Test func aFrameLongerThanTheLongestOrCutShortEndsTheStream() {
        var reader = Self.reader(
            for: Self.framed(Array("short".utf8)) + Self.framed([UInt8](repeating: 0x41, count: 500_000)),
            longest: 200_000)
        #expect(reader.next() == Array("short".utf8))
        #expect(reader.next() == nil)
        close(reader.fd)
        var cut = Self.reader(for: Array(Self.framed([1, 2, 3, 4, 5]).dropLast()))
        #expect(cut.next() == nil)
        close(cut.fd)
    }
}
