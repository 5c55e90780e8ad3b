import Foundation

/// Where an index's media is: its `src` taken from the index's own address (RFC 3986's
/// reference resolution, `..` and `.` segments removed), and refused where an index from the
/// network would reach beyond it.
public enum MediaAddress {
    /// The schemes media of an index from the network may have: files and streams over the
    /// network; never a local file, a device, a filter graph or a protocol that opens others.
    public static let networkSchemes: Set<String> = ["http", "https", "rtsp", "rtsps", "rtmp", "rtmps", "srt"]

    /// `src` resolved against `base` (the index's URL, or its path on disk), or why it may not
    /// play. An index on disk is the operator's own: its media may be any file or URL. One from
    /// the network may name only network URLs (`networkSchemes`, and `allowed` beside them).
    public static func resolve(_ src: String, against base: String, allowed: Set<String> = [])
        -> Result<String, Refusal>
    {
        let src = String(Substring(src).trimmingWhitespace())
        let remoteBase = scheme(of: base).map { $0 != "file" } ?? false
        let resolved: String
        if let s = scheme(of: src) {
            resolved = s == "data" ? src : normalized(src)
        } else if remoteBase || base.hasPrefix("file://") {
            resolved = join(src, onto: base)
        } else {
            // A path on disk: beside the index, or absolute.
            let folder = base.lastIndex(of: "/").map { String(base[...$0]) } ?? ""
            resolved = src.hasPrefix("/") ? removeDots(src) : removeDots(folder + src)
        }
        guard remoteBase else { return .success(resolved) }
        let s = scheme(of: resolved) ?? ""
        guard networkSchemes.contains(s) || allowed.contains(s) else {
            return .failure(Refusal(src: src, scheme: s))
        }
        return .success(resolved)
    }

    /// The text a `data:` URL holds (RFC 2397: `data:[TYPE][;base64],DATA`, its data
    /// percent-encoded or in base64), at most `limit` bytes of UTF-8; `nil` when it is not one,
    /// or holds no text.
    public static func dataText(_ url: String, limit: Int) -> String? {
        guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ",") else { return nil }
        let head = url[url.index(url.startIndex, offsetBy: 5)..<comma].lowercased()
        let body = url[url.index(after: comma)...]
        guard head.isEmpty || head.hasPrefix("text/") || head.hasPrefix(";") else { return nil }
        let bytes: [UInt8]
        if head.hasSuffix(";base64") {
            guard let data = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters) else { return nil }
            bytes = Array(data.prefix(limit))
        } else {
            guard let decoded = String(body).removingPercentEncoding else { return nil }
            bytes = Array(decoded.utf8.prefix(limit))
        }
        return String(validating: bytes, as: UTF8.self) ?? String(decoding: bytes, as: UTF8.self)
    }

    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var src: String
        public var scheme: String
        public var description: String {
            "'\(src)' is refused: an index from the network may name network URLs only, not \(scheme)://"
        }
    }

    /// The scheme (lower case) where `text` starts with one (`name:`, letters first).
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isLetter, name.count <= 32,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return name.lowercased()
    }

    /// A relative reference on a URL: from its authority (`/path`), its folder, or (`//host/…`)
    /// its scheme.
    static func join(_ ref: String, onto base: String) -> String {
        guard let schemeEnd = base.firstRange(of: "://") else { return ref }
        let afterScheme = base[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let origin = String(base[..<authorityEnd])
        if ref.hasPrefix("//") { return normalized(String(base[..<schemeEnd.lowerBound]) + ":" + ref) }
        let basePath = afterScheme[authorityEnd...].prefix { $0 != "?" && $0 != "#" }
        if ref.hasPrefix("/") { return normalized(origin + ref) }
        if ref.isEmpty || ref.hasPrefix("?") || ref.hasPrefix("#") { return origin + basePath + ref }
        let folder = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
        return normalized(origin + folder + ref)
    }

    /// A URL with its path's `.` and `..` segments removed (never above the root).
    static func normalized(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        guard let pathStart = afterScheme.firstIndex(of: "/") else { return url }
        let tail = afterScheme[pathStart...]
        let pathEnd = tail.firstIndex { $0 == "?" || $0 == "#" } ?? tail.endIndex
        return String(url[..<pathStart]) + removeDots(String(tail[..<pathEnd])) + tail[pathEnd...]
    }

    /// RFC 3986's `remove_dot_segments` on an absolute or relative path.
    static func removeDots(_ path: String) -> String {
        var out: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (i, segment) in segments.enumerated() {
            let last = i == segments.count - 1
            switch segment {
            case ".":
                if last { out.append("") }
            case "..":
                if out.count > 1 || (out.count == 1 && !out[0].isEmpty) { out.removeLast() }
                if last { out.append("") }
            default: out.append(segment)
            }
        }
        let joined = out.joined(separator: "/")
        return path.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }
}
