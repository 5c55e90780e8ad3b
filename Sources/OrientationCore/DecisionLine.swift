/// JSON text for the line formats Upright prints (the dry run's, `upright play`'s decision log).
public enum JSONText {
    /// A JSON string literal for `s`.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

extension RotationDecision {
    /// The decision as one JSON line, the format of `upright replay --events` and of `upright
    /// play`'s log: `time` is how `t` is written there, and the cause is included with `cause`.
    public func jsonLine(time: String, cause withCause: Bool = true) -> String {
        var s =
            "{\"t\": \(time), \"decision\": \"\(kind.rawValue)\", \"interface\": \"\(interface)\", "
            + "\"strategy\": \"\(strategy.rawValue)\", \"scene\": \(JSONText.quote(scene)), \"reason\": \"\(reason.rawValue)\""
        if withCause { s += ", \"cause\": \(JSONText.quote(cause))" }
        return s + "}"
    }
}
