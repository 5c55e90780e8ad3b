import ArgumentParser
import Config
import Diagnostics
import Foundation
import Glibc
import Logging
import MPV
import Memory
import OrientationCore
import Sensors
import Session
import Settings
import Synchronization
import Systemd
import UprightDaemon

/// A failure that has already been worded for the user, exit status 1: printed as
/// `upright: error: MESSAGE`, or as it is when it is a diagnostic that names its own place
/// (`trace.csv:12: error: ...`).
public struct CLIFailure: Error, CustomStringConvertible {
    public var description: String
    var isDiagnostic = false
    init(_ message: String) { description = message }
    init(diagnostic: String) {
        description = diagnostic
        isDiagnostic = true
    }
}

/// The configuration `upright play` and `check-config` use: the file given, else the first of the
/// search order (`UprightConfiguration.locate`).
func locateConfiguration(_ explicit: String?) throws(CLIFailure) -> UprightConfiguration {
    try reportingConfiguration { () throws(ConfigurationError) in try UprightConfiguration.locate(explicit: explicit) }
}

/// The configuration at `path`, or the built-in defaults when `path` is `nil`.
func loadConfiguration(_ path: String?) throws(CLIFailure) -> UprightConfiguration {
    guard let path else { return UprightConfiguration() }
    return try reportingConfiguration { () throws(ConfigurationError) in try UprightConfiguration.load(path: path) }
}

/// Reads a configuration with `read`, printing its warnings to standard error; its errors become
/// a failure printed as the diagnostics.
private func reportingConfiguration(
    _ read: () throws(ConfigurationError) -> UprightConfiguration
) throws(CLIFailure) -> UprightConfiguration {
    do {
        let configuration = try read()
        for w in configuration.warnings { writeStandardError("\(w)\n") }
        return configuration
    } catch {
        throw CLIFailure(diagnostic: error.description)
    }
}

/// Buffered standard output, so a fast replay is not held up by one write per line.
struct OutputBuffer {
    private var bytes: [UInt8] = []

    mutating func write(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            offset += n
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

extension Upright {
    /// The player's mpv runs in a process of its own: this program, started again with
    /// ``MPVHost/argument`` (one file, whose pages the two processes share), or, for `play`, forked
    /// now. Called first, on the main thread, while it is the only one; never returns for
    /// ``MPVHost/argument``. `notify-relay` runs here too, while the process has one thread
    /// (``NotifyRelayCommand``), and never returns.
    public static func serveMPVWhenAsked() {
        let first = processArguments.dropFirst().first
        if first == "notify-relay" {
            // On this thread, before any other starts: the signals it passes on wait for it in
            // `sigwait`, blocked in every thread (a thread that let one through would end the
            // process with it).
            NotifyRelay.blockSignals()
            // Told apart from Upright in ps, top and pgrep.
            try? "upright-relay".write(toFile: "/proc/self/comm", atomically: false, encoding: .utf8)
            NotifyRelayCommand.main(Array(processArguments.dropFirst(2)))
        }
        guard first == MPVHost.argument || first == "play" else { return }
        Allocator.limitArenas()
        if first == "play" {
            // mpv's process as a fork of this one, now that it has one thread: libmpv loads while
            // the configuration is read and the display found.
            MPVHandle.startProcessAhead(forking: true)
            return
        }
        MPVHost.serve()
    }

    /// The process's arguments, the program's path first: the runtime's, or the kernel's
    /// `/proc/self/cmdline` when the runtime has none (a preloaded library, libfaketime 0.9.10 for
    /// one, hides them from Swift's runtime: `upright play` would print the overview and exit).
    static let processArguments: [String] = {
        if !CommandLine.arguments.isEmpty { return CommandLine.arguments }
        guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return [] }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }()

    /// Runs the command line; worded failures print as `upright: error: ...` and exit with status 1.
    public static func run(arguments: [String]? = nil) async {
        // A network sensor (iiod) that goes away must be an error to retry, not a SIGPIPE that ends us.
        signal(SIGPIPE, SIG_IGN)
        Allocator.limitArenas()
        MPVHost.servedByThisProgram()
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler() }
        do {
            var command = try parseAsRoot(arguments ?? Array(processArguments.dropFirst()))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            StandardErrorLogHandler.flush()
        } catch let failure as CLIFailure {
            StandardErrorLogHandler.flush()
            writeStandardError(
                failure.isDiagnostic ? "\(failure.description)\n" : "upright: error: \(failure.description)\n")
            Glibc.exit(1)
        } catch {
            StandardErrorLogHandler.flush()
            exit(withError: error)
        }
    }
}

/// Writes text to standard error (file descriptor 2), unbuffered.
func writeStandardError(_ text: String) { writeAll(2, text) }

/// Writes a line to standard output (file descriptor 1) at once, for output that follows live events.
func writeLine(_ text: String) { writeAll(1, text + "\n") }

private func writeAll(_ fd: Int32, _ text: String) { _ = writeAll(fd, Array(text.utf8)) }

/// Writes every byte to `fd`, again after a signal interrupts it; why it could not (a reader
/// gone), or `nil`.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
    var rest = bytes[...]
    while !rest.isEmpty {
        let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return n < 0 ? String(cString: strerror(errno)) : "nothing written" }
        rest = rest.dropFirst(n)
    }
    return nil
}

/// A sensor URI from the command line; a bad one is a usage error that says what is expected.
func parseSensorURI(_ text: String) throws(CLIFailure) -> SensorURI {
    guard let uri = SensorURI(parsing: text) else {
        throw CLIFailure("bad sensor URI '\(text)'; expected \(SensorURI.expected)")
    }
    return uri
}

/// The log on standard error, one line a message: `upright: MESSAGE`, with the level for warnings
/// and errors (`upright: warning: ...`); systemd's journal adds the time. `UPRIGHT_LOG_LEVEL`
/// (`debug`, `info`, `notice`, `warning`, `error`) sets the least level shown (default `info`).
/// A line said again within the hour is counted, not written: "… (the same 360 times in the
/// last hour)" follows when the hour is over, or when the process ends.
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level =
        ProcessInfo.processInfo.environment["UPRIGHT_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level = event.level >= .warning ? "\(event.level): " : ""
        let now = Self.started.duration(to: .now) / .seconds(1)
        // A URL's secrets never reach the journal.
        let message = Redact.text("\(event.message)")
        Self.write(Self.repeats.withLock { $0.admit("upright: \(level)\(message)", at: now) })
    }

    /// A line that repeats is written once an hour with its count (``RepeatedLines``).
    static let repeats = Mutex(RepeatedLines())
    static let started = ContinuousClock.now

    /// The counts still held back, written at the end of the process.
    static func flush() { write(repeats.withLock { $0.flushAll() }) }

    private static func write(_ lines: [String]) {
        if !lines.isEmpty { writeStandardError(lines.map { $0 + "\n" }.joined()) }
    }
}
