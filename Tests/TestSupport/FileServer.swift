public import Foundation
import Glibc

/// Python's HTTP server on loopback over a directory, as a web server or a CMS serves files:
/// ETags (a hash of the contents) answered with 304 to `If-None-Match`, `Content-Length`, 404 for
/// what is not there; `/truncated/NAME` announces NAME's length and sends a tenth of it, then
/// closes. ``stop()`` ends it; ``init(root:port:)`` with the same port starts it again.
public final class FileServer: Sendable {
    static let script = #"""
        import hashlib, http.server, os, ssl, sys
        root, port = sys.argv[1], int(sys.argv[2])
        certificate = sys.argv[3] if len(sys.argv) > 4 and sys.argv[3] != '-' else None
        key = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != '-' else None
        requests = sys.argv[5] if len(sys.argv) > 5 else None
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def log_message(self, *a): pass
            def do_GET(self):
                if requests:
                    with open(requests, 'a') as f: f.write('%s %s\n' % (self.path, self.headers.get('User-Agent')))
                path = self.path.split('?')[0].lstrip('/')
                truncated = path.startswith('truncated/')
                if truncated: path = path[len('truncated/'):]
                full = os.path.join(root, path)
                if not os.path.isfile(full):
                    self.send_response(404); self.send_header('Content-Length', '0'); self.end_headers(); return
                data = open(full, 'rb').read()
                tag = '"%s"' % hashlib.sha256(data).hexdigest()[:16]
                if self.headers.get('If-None-Match') == tag:
                    self.send_response(304); self.send_header('ETag', tag); self.end_headers(); return
                self.send_response(200); self.send_header('ETag', tag)
                self.send_header('Content-Length', str(len(data))); self.end_headers()
                if truncated:
                    self.wfile.write(data[:len(data) // 10]); self.wfile.flush(); self.close_connection = True
                else:
                    self.wfile.write(data)
        http.server.ThreadingHTTPServer.allow_reuse_address = True
        s = http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler)
        if certificate:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            s.socket = context.wrap_socket(s.socket, server_side=True)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """#

    let process: Process
    public let port: Int
    public let root: String
    let scheme: String

    /// Starts serving `root` on `port` (0: any free one); over TLS with `tls` (a PEM certificate
    /// chain and its key). With `requests`, each request's path and User-Agent are appended to
    /// that file, a line each.
    public init(
        root: String, port: Int = 0, tls: (certificate: String, key: String)? = nil, requests: String? = nil
    ) throws {
        let secure = tls.map { [$0.certificate, $0.key] } ?? ["-", "-"]
        let (p, line) = try Process.startedWithFirstLine(
            "/usr/bin/python3", ["-c", Self.script, root, String(port)] + secure + (requests.map { [$0] } ?? []))
        scheme = tls == nil ? "http" : "https"
        guard let bound = Int(line) else {
            p.send(SIGKILL)
            throw HarnessError("the file server did not start on port \(port)")
        }
        (process, self.port, self.root) = (p, bound, root)
    }

    /// `http://127.0.0.1:PORT/PATH` (`https://localhost:PORT/PATH` over TLS: the name the
    /// certificate is for).
    public func url(_ path: String) -> String {
        scheme == "http" ? "http://127.0.0.1:\(port)/\(path)" : "https://localhost:\(port)/\(path)"
    }

    public func stop() {
        // Foundation starts children with the calling thread's signal mask, and the test's
        // threads block SIGTERM: only SIGKILL is sure to end the server.
        process.send(SIGKILL)
        process.waitUntilExit()
    }
}

extension Process {
    /// Starts `executable` and waits for the first line it prints (a server's port or display,
    /// once it listens); that line, trimmed (empty when it ended first).
    public static func startedWithFirstLine(_ executable: String, _ arguments: [String]) throws -> (Process, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return (p, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
