/// Who the player is to a CMS: the User-Agent of the ADAPI players' family
/// (`ADAPI/2.0 (UUID:…; NAME:…) Upright-Linux/VERSION (MODEL:Upright)`), with a UUID the player
/// keeps in its state directory and its name (`[mqtt] device`). CMSes tell their screens apart
/// by it, and some send each its own index.
public struct PlayerIdentity: Sendable, Hashable {
    public var uuid: String
    public var name: String
    public var version: String

    public init(uuid: String, name: String, version: String) {
        self.uuid = uuid
        self.name = name
        self.version = version
    }

    public var userAgent: String {
        "ADAPI/2.0 (UUID:\(uuid); NAME:\(Self.token(name, limit: 64))) Upright-Linux/\(Self.token(version, limit: 32)) (MODEL:Upright)"
    }

    /// `text` as it may stand in the header: printable ASCII without the delimiters `;()`
    /// (each other character a `-`), at most `limit` long, `-` when empty. A name never ends a
    /// header or adds one.
    static func token(_ text: String, limit: Int) -> String {
        let kept = text.unicodeScalars.prefix(limit).map { s -> Character in
            (0x21...0x7E).contains(s.value) && !";()\\\"".unicodeScalars.contains(s) ? Character(s) : "-"
        }
        return kept.isEmpty ? "-" : String(kept)
    }
}
