public import Display
import Files
import Foundation
public import Input
public import OrientationCore
public import Player
public import Sensors
import TOMLKit

/// Upright's configuration: every setting, validated, with defaults for what the file leaves out.
public struct UprightConfiguration: Sendable {
    public var policy = PolicyConfiguration()
    public var classifier = OrientationClassifier.Parameters()
    public var sensor = SensorSettings()
    public var lock = LockSettings()
    public var display = DisplaySettings()
    /// What plays, mpv's options and the hotkeys.
    public var player = PlayerSettings()
    /// The input devices read for `KEY_`/`BTN_` hotkeys.
    public var input = InputSettings()
    /// Warnings found while reading (unknown keys, with the closest known one).
    public var warnings: [Diagnostic] = []
    /// The file it came from; `nil` for the built-in defaults.
    public var file: String?

    public init() {}

    /// What the input hub reads: the `KEY_`/`BTN_` names of `[hotkeys]`, on `[input] devices`,
    /// and the rotation-lock switch of `[lock] evdev`.
    public var inputPlan: InputPlan {
        let keys = player.hotkeys.values.joined().compactMap {
            LinuxKeys.isLinuxName($0) ? LinuxKeys.code(of: $0) : nil
        }
        return InputPlan(devices: input.devices, keys: Set(keys), grab: input.grab, lockSwitch: lock.evdev)
    }

    /// The action each bound input-device key asks for.
    public var inputActions: [UInt16: Action] {
        var out: [UInt16: Action] = [:]
        for (action, keys) in player.hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            for k in keys where LinuxKeys.isLinuxName(k) {
                if let code = LinuxKeys.code(of: k), out[code] == nil { out[code] = action }
            }
        }
        return out
    }

    /// Reads and validates a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` with every error (and the warnings) found, each with its
    ///   file:line:column, or a single one for a file that cannot be read.
    public static func load(path: String) throws(ConfigurationError) -> UprightConfiguration {
        let text: String
        do {
            if let problem = readProblem(path) { throw ReadFailure(reason: problem) }
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = (error as? ReadFailure)?.reason ?? "not UTF-8 text"
            throw ConfigurationError(diagnostics: [
                Diagnostic(
                    file: path, line: nil, column: nil, severity: .error,
                    message: "cannot read the configuration file: \(reason)")
            ])
        }
        return try parse(text, file: path)
    }

    /// Parses and validates configuration text; `file` names it in diagnostics.
    public static func parse(_ text: String, file: String = "<config>") throws(ConfigurationError)
        -> UprightConfiguration
    {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigurationError(diagnostics: [
                Diagnostic(
                    file: file, line: e.source.begin.line, column: e.source.begin.column, severity: .error,
                    message: "invalid TOML: "
                        + e.description.replacingOccurrences(
                            of: " (at line \(e.source.begin.line), column \(e.source.begin.column))", with: ""))
            ])
        } catch {
            throw ConfigurationError(diagnostics: [
                Diagnostic(file: file, line: nil, column: nil, severity: .error, message: "invalid TOML: \(error)")
            ])
        }
        var reader = ConfigReader(file: file, map: SourceMap(text))
        var config = reader.read(table)
        config.file = file
        reader.validate(&config)
        // In the order of the file, as a compiler lists them.
        let diagnostics = reader.diagnostics.enumerated().sorted {
            ($0.element.line ?? 0, $0.element.column ?? 0, $0.offset) < (
                $1.element.line ?? 0, $1.element.column ?? 0, $1.offset
            )
        }.map(\.element)
        guard diagnostics.allSatisfy({ $0.severity != .error }) else {
            throw ConfigurationError(diagnostics: diagnostics)
        }
        config.warnings = diagnostics
        return config
    }
}

/// Why a file could not be read.
private struct ReadFailure: Error {
    var reason: String
}
