import Foundation
import Glibc

/// A fault proxy on loopback, put between Upright and a test's HTTP server (a CMS, an HLS
/// server) in place of stopping the server: it passes requests on, or, for the requests whose
/// path contains a given text, stalls, trickles, truncates, resets or answers with an error
/// status, as a broken network or a failing server does. Each request gets a connection of its
/// own upstream (`Connection: close` both ways), so that each is judged by the fault of the
/// moment; a transfer under way follows a new fault too (a stall holds it, a reset ends it).
public final class FaultProxy: Sendable {
    /// What the proxy does to the requests it applies to.
    public enum Fault: Sendable {
        /// Passes them on.
        case pass
        /// Sends `afterBytes` of the answer's body (0: not even its head), then nothing, for as long
        /// as the fault lasts; the transfer goes on after it.
        case stall(afterBytes: Int = 0)
        /// Passes the answer on at `bytesPerSecond`.
        case trickle(bytesPerSecond: Int = 1000)
        /// Sends the answer's head and `atBytes` of its body (`nil`: half of its length), then closes.
        case truncate(atBytes: Int? = nil)
        /// Resets the connection (a TCP RST), at once or mid-transfer.
        case reset
        /// Answers with this HTTP status and an empty body (503: a server or CDN whose origin is down).
        case status(Int)

        var words: String {
            switch self {
            case .pass: "pass"
            case .stall(let n): "stall \(n)"
            case .trickle(let rate): "trickle \(rate)"
            case .truncate(let n): "truncate \(n ?? -1)"
            case .reset: "reset 0"
            case .status(let code): "status \(code)"
            }
        }
    }

    /// The proxy itself: `scripts/fault-proxy.py`, beside the tests in the source tree.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/fault-proxy.py").standardized.path

    let process: Process
    let input: FileHandle
    let output: FileHandle
    /// The proxy's own port on loopback.
    public let port: Int

    /// Starts a proxy on a free port of loopback for the server on `upstream` (loopback too).
    public init(upstream: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [Self.script, String(upstream)]
        let (stdin, stdout) = (Pipe(), Pipe())
        (p.standardInput, p.standardOutput, p.standardError) = (stdin, stdout, FileHandle.nullDevice)
        try p.run()
        (process, input, output) = (p, stdin.fileHandleForWriting, stdout.fileHandleForReading)
        guard let bound = Int(Self.line(from: output)) else {
            p.send(SIGKILL)
            throw HarnessError("the fault proxy did not start")
        }
        port = bound
    }

    /// `http://127.0.0.1:PORT/PATH` through the proxy.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// From now on, `fault` for the requests whose path contains `paths` (every request: ""),
    /// transfers under way included; the others pass. Returns once the proxy has taken it.
    public func set(_ fault: Fault, paths: String = "") throws {
        guard !paths.contains(where: \.isWhitespace) else { throw HarnessError("a path with a space: \(paths)") }
        try input.write(contentsOf: Data("\(fault.words) \(paths)\n".utf8))
        guard Self.line(from: output) == "ok" else { throw HarnessError("the fault proxy did not take \(fault)") }
    }

    public func stop() {
        try? input.close()
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// The next line `handle` says, trimmed (empty when it ended first).
    static func line(from handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        // A signal to this process (a child's end, in a full test run) interrupts the read: it
        // is read again, not taken for the end of the line.
        while true {
            let n = read(handle.fileDescriptor, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1, byte != 10 else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
