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

extension Double {
    /// The number with exactly `decimals` digits after the point (`12.300` for 3), rounded half
    /// away from zero: the one number format of Upright's lines, logs and traces.
    public func fixed(_ decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (abs(self) * Double(scale)).rounded()
        guard isFinite, scaled < 9e15 else { return "\(self)" }
        let n = Int64(scaled)
        let sign = self < 0 && n != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(n) }
        let fraction = String(n % scale)
        return sign + String(n / scale) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

extension Duration {
    /// The duration in seconds, as the policy and the classifier count time.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
