/// Linux's key names (`KEY_F11`, `KEY_OK`, `BTN_0` …), as `<linux/input-event-codes.h>` writes
/// them. In `[hotkeys]` a name with the upper-case `KEY_` or `BTN_` prefix is read from input
/// devices; every other name is mpv's, which has none with that prefix.
public enum LinuxKeys {
    private static let codes: [String: UInt16] = Dictionary(table, uniquingKeysWith: { first, _ in first })
    /// The header's names that mark where a group of codes starts, never what a key is called.
    private static let groupMarkers: Set<String> = [
        "BTN_MISC", "BTN_MOUSE", "BTN_JOYSTICK", "BTN_GAMEPAD", "BTN_DIGI", "BTN_WHEEL", "BTN_TRIGGER_HAPPY",
        "KEY_MIN_INTERESTING",
    ]
    private static let names: [UInt16: String] = Dictionary(
        table.filter { !groupMarkers.contains($0.0) }.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

    /// Whether `key` is written as a Linux key name (rather than mpv's).
    public static func isLinuxName(_ key: String) -> Bool { key.hasPrefix("KEY_") || key.hasPrefix("BTN_") }

    /// The code of a Linux key name; `nil` for a name the kernel does not define.
    public static func code(of name: String) -> UInt16? { codes[name] }

    /// The first name the header gives `code` (`KEY_F11`), or its number.
    public static func name(of code: UInt16) -> String { names[code] ?? "key 0x" + String(code, radix: 16) }

    /// Why `key` is not a Linux key name; `nil` when it is one.
    public static func problem(with key: String) -> String? {
        guard codes[key] == nil else { return nil }
        let near = codes.keys.filter { $0.hasPrefix(String(key.prefix(4))) }.min {
            editDistance($0, key) < editDistance($1, key)
        }
        let hint = near.flatMap { editDistance($0, key) <= 3 ? "; did you mean \($0)?" : nil } ?? ""
        return "Linux has no key named '\(key)'\(hint) (the names of <linux/input-event-codes.h>: KEY_F11, KEY_OK, "
            + "KEY_ENTER, KEY_PLAYPAUSE, BTN_0 …; `evtest` shows what a device sends)"
    }
}

/// The number of single-character insertions, deletions and substitutions that turn `a` into
/// `b` (Levenshtein): how near a misspelt name is to a known one, for "did you mean".
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var previous = row[0]
        row[0] = i
        for j in 1...b.count {
            let old = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = old
        }
    }
    return row[b.count]
}
