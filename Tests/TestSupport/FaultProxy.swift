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

    static let script = #"""
        import asyncio, os, socket, struct, sys
        upstream = int(sys.argv[1])
        state = {'fault': 'pass', 'arg': 0, 'match': ''}

        def fault(path):
            return (state['fault'], state['arg']) if state['match'] in path else ('pass', 0)

        def reset(writer):
            sock = writer.get_extra_info('socket')
            try: sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
            except OSError: pass
            writer.transport.abort()

        def closing(head):
            lines = [l for l in head.split(b'\r\n') if l and not l.lower().startswith(b'connection:')]
            return b'\r\n'.join(lines + [b'Connection: close']) + b'\r\n\r\n'

        async def request_head(reader, writer):
            # An idle connection is reset by a reset of every path, as a dying server's would be.
            while True:
                try: return await asyncio.wait_for(reader.readuntil(b'\r\n\r\n'), 0.2)
                except asyncio.TimeoutError:
                    if state['fault'] == 'reset' and state['match'] == '': reset(writer); return None

        async def handle(reader, writer):
            try:
                head = await request_head(reader, writer)
                if head is None: return
                path = head.split(b' ', 2)[1].decode('latin-1')
                while fault(path) == ('stall', 0): await asyncio.sleep(0.05)
                kind, arg = fault(path)
                if kind == 'reset': reset(writer); return
                if kind == 'status':
                    writer.write(b'HTTP/1.1 %d Fault\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' % arg)
                    await writer.drain(); writer.close(); return
                up_reader, up_writer = await asyncio.open_connection('127.0.0.1', upstream)
                up_writer.write(closing(head)); await up_writer.drain()
                answer = await up_reader.readuntil(b'\r\n\r\n')
                length = None
                for line in answer.split(b'\r\n'):
                    if line.lower().startswith(b'content-length:'): length = int(line.split(b':')[1])
                writer.write(closing(answer)); await writer.drain()
                sent = 0
                while True:
                    kind, arg = fault(path)
                    if kind == 'reset': reset(writer); up_writer.close(); return
                    if kind == 'stall' and sent >= arg: await asyncio.sleep(0.05); continue
                    size = 65536
                    if kind == 'stall': size = min(size, arg - sent)
                    if kind == 'trickle': size = max(1, arg // 10)
                    if kind == 'truncate':
                        limit = arg if arg >= 0 else (length or 2000) // 2
                        if sent >= limit: break
                        size = min(size, limit - sent)
                    data = await up_reader.read(size)
                    if not data: break
                    writer.write(data); await writer.drain(); sent += len(data)
                    if kind == 'trickle': await asyncio.sleep(0.1)
                up_writer.close()
                writer.close()
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError, ValueError):
                try: writer.close()
                except OSError: pass

        async def control():
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
            while True:
                line = await reader.readline()
                if not line: os._exit(0)  # the test is over
                words = line.decode().split()
                state['fault'] = words[0]
                state['arg'] = int(words[1]) if len(words) > 1 else 0
                state['match'] = words[2] if len(words) > 2 else ''
                print('ok', flush=True)

        async def main():
            server = await asyncio.start_server(handle, '127.0.0.1', 0, reuse_address=True)
            print(server.sockets[0].getsockname()[1], flush=True)
            await control()

        asyncio.run(main())
        """#

    let process: Process
    let input: FileHandle
    let output: FileHandle
    /// The proxy's own port on loopback.
    public let port: Int

    /// Starts a proxy on a free port of loopback for the server on `upstream` (loopback too).
    public init(upstream: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", Self.script, String(upstream)]
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
        while read(handle.fileDescriptor, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
