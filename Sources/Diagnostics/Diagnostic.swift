/// A problem found in a configuration file, with its place, rendered like a compiler's
/// (`upright.toml:12:14: error: unknown orientation 'landscap-left'; expected one of: ...`).
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    public var file: String
    /// 1-based line and column; `nil` when the problem has no place (the file as a whole).
    public var line: Int?
    public var column: Int?
    public var severity: Severity
    public var message: String

    public init(file: String, line: Int?, column: Int?, severity: Severity, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        return "\(place): \(severity.rawValue): \(message)"
    }
}

/// A configuration that could not be used: every error found, and the warnings beside them.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
