/// Secrets kept out of what Upright says: the log, `ctl status`, the page and MQTT. A URL keeps
/// its scheme, host, path and user name; a password in it (`user:pass@`), a user part that is a
/// token alone (`TOKEN@host`), and the values of query parameters that carry secrets (`token`,
/// `key`, `signature`, `password`, …) become `***`.
public enum Redact {
    public static let mask = "***"

    /// Query parameters whose value is a secret: a name that contains one of these (any case).
    static let secretNames = ["token", "key", "pass", "secret", "sig", "auth", "credential", "session"]

    /// `text` with every URL in it redacted (``url(_:)``): a log line, a JSON reply (where `/` may
    /// be written `\/`).
    public static func text(_ text: String) -> String {
        guard text.contains("://") || text.contains(":\\/\\/") else { return text }
        var out = ""
        var rest = Substring(text)
        for found in urls(in: text) {
            guard let r = rest.firstRange(of: found) else { break }
            out += rest[..<r.lowerBound] + url(found)
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// Where the next URL in `text` starts (its scheme's first letter), if any.
    static func schemeStart(in text: Substring) -> Substring.Index? {
        var from = text.startIndex
        while let r = text[from...].firstRange(of: "://") ?? text[from...].firstRange(of: ":\\/\\/") {
            var s = r.lowerBound
            while s > text.startIndex {
                let c = text[text.index(before: s)]
                guard c.isASCII, c.isLetter || c.isNumber || "+-.".contains(c) else { break }
                s = text.index(before: s)
            }
            if s < r.lowerBound, text[s].isLetter { return s }
            from = r.upperBound
        }
        return nil
    }

    /// The URLs in `text`, in order, as they are written there.
    public static func urls(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let start = schemeStart(in: rest) {
            let end = rest[start...].firstIndex { $0.isWhitespace || "\"'<>".contains($0) } ?? rest.endIndex
            found.append(String(rest[start..<end]))
            rest = rest[end...]
        }
        return found
    }

    /// One URL with its secrets masked.
    public static func url(_ url: String) -> String {
        let slashes = url.firstRange(of: "://") ?? url.firstRange(of: ":\\/\\/")
        guard let slashes else { return url }
        let authorityStart = slashes.upperBound
        let afterAuthority = url[authorityStart...].firstIndex { "/\\?#".contains($0) } ?? url.endIndex
        var authority = String(url[authorityStart..<afterAuthority])
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let host = authority[authority.index(after: at)...]
            if let colon = user.firstIndex(of: ":") {
                authority = "\(user[..<colon]):\(mask)@\(host)"
            } else {
                authority = "\(mask)@\(host)"
            }
        }
        var rest = String(url[afterAuthority...])
        if let question = rest.firstIndex(of: "?") {
            let fragment = rest[question...].firstIndex(of: "#") ?? rest.endIndex
            let query = rest[rest.index(after: question)..<fragment].split(
                separator: "&", omittingEmptySubsequences: false)
            let masked = query.map { pair -> String in
                guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
                let name = pair[..<eq].lowercased()
                return secretNames.contains(where: { name.contains($0) }) ? "\(pair[..<eq])=\(mask)" : String(pair)
            }
            rest = String(rest[...question]) + masked.joined(separator: "&") + rest[fragment...]
        }
        return String(url[..<authorityStart]) + authority + rest
    }
}
