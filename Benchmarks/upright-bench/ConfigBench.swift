import Config
import Foundation
import Memory
import TOML
import TOMLKit
import UprightDaemon

/// Reading a configuration again and again, as reloads do over months: the heap kept per read
/// (glibc's bytes in use, after a warm-up) and the time per read, for the project's TOML reader
/// and the full configuration read on it, beside TOMLKit (toml++), the reader it replaced.
func measureConfig(path: String, reads: Int) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(Data("upright-bench: error: cannot read \(path)\n".utf8))
        exit(1)
    }
    func run(_ name: String, _ read: () -> Void) -> String {
        for _ in 0..<50 { read() }
        Allocator.giveBackFreed()
        let before = Allocator.inUseBytes
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<reads { read() }
        let seconds = (clock.now - start).seconds
        Allocator.giveBackFreed()
        let kept = Double(Allocator.inUseBytes - before) / Double(reads)
        return String(
            format: "\"%@\": {\"bytes_kept_per_read\": %.0f, \"us_per_read\": %.1f}", name, kept,
            seconds / Double(reads) * 1e6)
    }
    let rows = [
        run("toml") { _ = try? TOML.TOMLTable(parsing: text) },
        run("configuration") { _ = try? UprightConfiguration.parse(text, file: path) },
        run("tomlkit") { _ = try? TOMLKit.TOMLTable(string: text) },
    ]
    print("{\"file\": \"\(path)\", \"reads\": \(reads), " + rows.joined(separator: ", ") + "}")
}
