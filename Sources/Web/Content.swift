import Blocking
import Config
public import Diagnostics
import Files
import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Settings

/// The folder the page uploads media into and deletes from. A name is one file name in that folder
/// (no `/`, no leading dot, a known media extension); an upload is written to a hidden file beside
/// it, counted against the limit and the free space as it arrives, its first bytes checked to be the
/// kind its extension says, then renamed into place: a player that scans the folder never sees
/// half a file, and nothing is written outside the folder.
public struct ContentFolder: Sendable {
    public let path: String
    public let maxBytes: Int

    public init(path: String, maxBytes: Int) {
        self.path = path
        self.maxBytes = maxBytes
    }

    /// The kinds a file may be, by extension, each with the check of its first bytes.
    enum Kind: Sendable {
        case isoMedia, matroska, avi, mpegTS, png, jpeg, gif, webp, bmp, mp3, ogg, flac, wav

        static let byExtension: [String: Kind] = [
            "mp4": .isoMedia, "m4v": .isoMedia, "mov": .isoMedia, "m4a": .isoMedia, "mkv": .matroska,
            "webm": .matroska, "avi": .avi, "ts": .mpegTS, "png": .png, "jpg": .jpeg, "jpeg": .jpeg, "gif": .gif,
            "webp": .webp, "bmp": .bmp, "mp3": .mp3, "ogg": .ogg, "opus": .ogg, "flac": .flac, "wav": .wav,
        ]

        /// Whether `head` (the file's first bytes, up to 376) starts as this kind does.
        func matches(_ head: [UInt8]) -> Bool {
            func at(_ offset: Int, _ text: String) -> Bool {
                let bytes = Array(text.utf8)
                return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
            }
            func riff(_ form: String) -> Bool { at(0, "RIFF") && at(8, form) }
            switch self {
            case .isoMedia: return at(4, "ftyp")
            case .matroska: return head.starts(with: [0x1A, 0x45, 0xDF, 0xA3])
            case .avi: return riff("AVI ")
            case .mpegTS: return head.first == 0x47 && (head.count <= 188 || head[188] == 0x47)
            case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            case .jpeg: return head.starts(with: [0xFF, 0xD8, 0xFF])
            case .gif: return at(0, "GIF87a") || at(0, "GIF89a")
            case .webp: return riff("WEBP")
            case .bmp: return at(0, "BM")
            case .mp3: return at(0, "ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
            case .ogg: return at(0, "OggS")
            case .flac: return at(0, "fLaC")
            case .wav: return riff("WAVE")
            }
        }
    }

    /// The extensions uploads may have.
    public static var extensions: [String] { Kind.byExtension.keys.sorted() }

    /// `name` when it is one media file's name in the folder; else why not.
    public static func check(name: String) -> Result<String, WebError> {
        if name.isEmpty { return .failure(WebError("the file has no name")) }
        if name.contains("/") || name.contains("\\") || name.contains("\0") || name == "." || name == ".." {
            return .failure(WebError("'\(name)' is not a plain file name: uploads stay in their folder"))
        }
        if name.hasPrefix(".") {
            return .failure(WebError("'\(name)' starts with a dot (hidden files are not played)"))
        }
        if name.utf8.count > 255 { return .failure(WebError("the name is longer than 255 bytes")) }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(WebError("the name has control characters"))
        }
        let ext = (name as NSString).pathExtension.lowercased()
        guard Kind.byExtension[ext] != nil else {
            return .failure(
                WebError("'\(name)' is not a media file Upright plays (\(extensions.joined(separator: ", ")))"))
        }
        return .success(name)
    }

    public struct Item: Codable, Sendable, Hashable {
        public var name: String
        public var bytes: Int
    }

    /// The media files in the folder, by name.
    public func list() -> [Item] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().compactMap { name in
            guard case .success = Self.check(name: name) else { return nil }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Item(name: name, bytes: Int(info.st_size))
        }
    }

    /// Bytes free for an unprivileged writer in the folder's file system.
    func freeBytes() -> Int? { FileSystemRoom(at: path).map { Int($0.freeBytes) } }

    /// Writes `body` to `name` in the folder, atomically; the bytes written, or why not (the
    /// partial file removed). `length` is the request's Content-Length when it gave one.
    func receive(name asked: String, length: Int?, body: RequestBody) async -> Result<Int, UploadError> {
        let name: String
        switch admit(name: asked, length: length) {
        case .success(let n): name = n
        case .failure(let e): return .failure(e)
        }
        let temporary = "\(path)/.upload-\(WebPage.token().prefix(16))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { return .failure(.unavailable("cannot write in \(path): \(systemError(errno))")) }
        var written = 0
        var head: [UInt8] = []
        func fail(_ e: UploadError) -> Result<Int, UploadError> {
            close(fd)
            unlink(temporary)
            return .failure(e)
        }
        do {
            for try await buffer in body {
                written += buffer.readableBytes
                if written > maxBytes {
                    return fail(.tooLarge("the file is over the limit of \(maxBytes) bytes ([web] upload_max_mb)"))
                }
                if head.count < 376 {
                    head +=
                        buffer.getBytes(at: buffer.readerIndex, length: min(376 - head.count, buffer.readableBytes))
                        ?? []
                }
                let e = await Self.write(buffer, to: fd)
                if e != 0 {
                    return fail(
                        e == ENOSPC ? .noSpace("\(path) is full") : .unavailable("writing \(name): \(systemError(e))"))
                }
            }
        } catch {
            return fail(.unavailable("the upload ended early: \(error)"))
        }
        let ext = (name as NSString).pathExtension.lowercased()
        guard let kind = Kind.byExtension[ext], kind.matches(head) else {
            return fail(.refused("'\(name)' does not start as a .\(ext) file does: not uploaded"))
        }
        // fsync of up to the upload limit (gigabytes) waits for the disk: off the cooperative pool.
        let synced = await Blocking.run { fsync(fd) == 0 ? Int32(0) : errno }
        guard synced == 0 else { return fail(.unavailable("writing \(name): \(systemError(synced))")) }
        close(fd)
        guard rename(temporary, "\(path)/\(name)") == 0 else {
            let e = errno
            unlink(temporary)
            return .failure(.unavailable("cannot put \(name) in \(path): \(systemError(e))"))
        }
        return .success(written)
    }

    /// The upload's name as it is kept, or why it is refused before a byte is written: a name that
    /// leaves the folder, a length over the limit, a missing folder, too little free space.
    func admit(name asked: String, length: Int?) -> Result<String, UploadError> {
        let name: String
        switch Self.check(name: asked) {
        case .success(let n): name = n
        case .failure(let e): return .failure(.refused(e.description))
        }
        if let length, length > maxBytes {
            return .failure(
                .tooLarge("the file is \(length) bytes; uploads are limited to \(maxBytes) bytes ([web] upload_max_mb)")
            )
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            return .failure(.unavailable("the upload folder \(path) is missing: \(systemError(errno))"))
        }
        if let length, let free = freeBytes(), free < length + (64 << 20) {
            return .failure(
                .noSpace("\(path) has \(free >> 20) MB free; the file needs \(length >> 20) MB and 64 MB are kept"))
        }
        return .success(name)
    }

    /// Writes `buffer` whole to `fd` off the cooperative pool (a write may wait for the disk);
    /// 0, or the error number.
    static func write(_ buffer: ByteBuffer, to fd: Int32) async -> Int32 {
        await Blocking.run { () -> Int32 in
            buffer.withUnsafeReadableBytes { raw -> Int32 in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { return n < 0 ? errno : EIO }
                    offset += n
                }
                return 0
            }
        }
    }

    /// Removes `name` from the folder; why not, when it cannot.
    public func delete(name: String) -> String? {
        switch Self.check(name: name) {
        case .failure(let e): return e.description
        case .success(let n):
            return unlink("\(path)/\(n)") == 0 ? nil : "cannot delete \(n): \(systemError(errno))"
        }
    }
}

/// Why an upload was not kept, with the HTTP status it answers.
public enum UploadError: Error, Sendable, Hashable {
    case refused(String), tooLarge(String), noSpace(String), unavailable(String)

    public var message: String {
        switch self {
        case .refused(let m), .tooLarge(let m), .noSpace(let m), .unavailable(let m): m
        }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .refused: .unprocessableContent
        case .tooLarge: .contentTooLarge
        case .noSpace: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .unavailable: .serviceUnavailable
        }
    }
}

/// Lines of a configuration posted from the page that were changed around a masked secret.
public struct ChangedSecrets: Error, Sendable, Hashable {
    public let lines: [Int]
}

/// The configuration file the page shows and edits: a save is checked first (with the drop-ins
/// over it, as `play` reads them), written atomically, then applied as a reload.
public struct ConfigurationFile: Sendable {
    public let path: String
    public let reload: @Sendable () async -> String

    public init(path: String, reload: @escaping @Sendable () async -> String) {
        self.path = path
        self.reload = reload
    }

    /// The problems of `text` as the file at ``path``, its drop-ins over it; none: it may be saved.
    public func check(_ text: String) -> [Diagnostic] {
        var layers = [(text: text, file: path)]
        for d in UprightConfiguration.dropIns(of: path) {
            if let t = try? String(contentsOfFile: d, encoding: .utf8) { layers.append((t, d)) }
        }
        do {
            let c = try UprightConfiguration.parse(layers: layers)
            return c.warnings
        } catch {
            return error.diagnostics
        }
    }

    /// The configuration as the page shows it: secrets masked (``Redact``), the credentials in
    /// URLs and the values of `password` keys (`[mqtt] password`); no password is served.
    public static func masked(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { maskLine(String($0)) }
            .joined(separator: "\n")
    }

    static func maskLine(_ line: String) -> String {
        let masked = Redact.text(line)
        guard let eq = passwordKey(masked) else { return masked }
        return masked[...eq] + " \"\(Redact.mask)\""
    }

    /// Where the `=` of a `password = …` line is, if it is one.
    static func passwordKey(_ line: String) -> String.Index? {
        guard let eq = line.firstIndex(of: "=") else { return nil }
        let key = line[..<eq].trimmingCharacters(in: .whitespaces)
        return key == "password" || key == "\"password\"" ? eq : nil
    }

    /// Whether `line` holds the mask where a secret goes.
    static func holdsMask(_ line: String) -> Bool {
        let m = Redact.mask
        return line.contains("\(m)@") || line.contains("=\(m)") || (passwordKey(line) != nil && line.contains(m))
    }

    /// `posted` with each line that still holds a mask put back as the file (`current`) has it;
    /// the numbers of the lines changed around a mask (their secret must be typed again).
    public static func unmasked(_ posted: String, current: String) -> Result<String, ChangedSecrets> {
        // A masked URL is put back wherever it stands (a playlist's line may change around it);
        // a password line as a whole.
        var lineOriginals: [String: String] = [:]
        var urlOriginals: [String: String] = [:]
        for line in current.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let m = maskLine(line)
            if m != line, passwordKey(line) != nil { lineOriginals[m] = line }
            for u in Redact.urls(in: line) where Redact.url(u) != u { urlOriginals[Redact.url(u)] = u }
        }
        var changed: [Int] = []
        let lines = posted.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { n, line in
            var line = String(line)
            guard line.contains(Redact.mask) else { return line }
            if let original = lineOriginals[line] { return original }
            for u in Redact.urls(in: line) {
                if let original = urlOriginals[u] { line = line.replacingOccurrences(of: u, with: original) }
            }
            if holdsMask(line) { changed.append(n + 1) }  // changed around its secret
            return line
        }
        return changed.isEmpty ? .success(lines.joined(separator: "\n")) : .failure(ChangedSecrets(lines: changed))
    }

    /// Writes `text` over the file (a temporary beside it, renamed); why not, when it cannot.
    public func save(_ text: String) -> String? {
        let temporary = (path as NSString).deletingLastPathComponent + "/.\((path as NSString).lastPathComponent).web"
        var info = stat()
        let mode = stat(path, &info) == 0 ? mode_t(info.st_mode & 0o7777) : 0o644
        switch WholeFile.write(text, to: path, temporary: temporary, mode: mode) {
        case .create(let e): return "cannot write beside \(path): \(systemError(e))"
        case .write(let e): return "cannot write \(path): \(systemError(e))"
        case nil: return nil
        }
    }
}
