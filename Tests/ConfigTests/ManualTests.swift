import Foundation
import Testing

@testable import Config

/// upright.toml(5), made from the example configuration by `scripts/toml-man.py` (as `make deb`
/// makes it): every key the reader takes is on the page, under its table, and groff finds nothing
/// wrong with it.
@Suite("The configuration's man page")
struct ManualTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized.path

    /// Runs `program arguments`; its standard output and standard error.
    static func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> (String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let out = Pipe(), err = Pipe(), inp = Pipe()
        (p.standardOutput, p.standardError, p.standardInput) = (out, err, inp)
        try p.run()
        if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// The page's keys, by table (`.SS [table]`, then `\fBkey\fR = default`).
    static func keys(_ page: String) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        var table = ""
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".SS [") {
                table = String(line.dropFirst(5).dropLast()).replacingOccurrences(of: "\\-", with: "-")
            } else if line.hasPrefix("\\fB"), let end = line.range(of: "\\fR = ") {
                out[table, default: []].insert(String(line[line.index(line.startIndex, offsetBy: 3)..<end.lowerBound]))
            }
        }
        return out
    }

    @Test func everyKeyTheReaderTakesIsOnThePageUnderItsTable() throws {
        let (page, problems) = try Self.run(
            "/usr/bin/python3", [Self.root + "/scripts/toml-man.py", Self.root + "/config/upright.toml", "test"])
        #expect(problems.isEmpty, "\(problems)")
        let onPage = Self.keys(page)
        var missing: [String] = []
        for (table, keys) in ConfigReader.sections {
            // [player.mpv], [hotkeys] and [scenes.NAME] take keys of their own choosing.
            for key in keys where key != "mpv" && !(onPage[table]?.contains(key) ?? false) {
                missing.append("\(table).\(key)")
            }
        }
        let sceneKeys = onPage.filter { $0.key.hasPrefix("scenes.") }.values.reduce(into: Set<String>()) {
            $0.formUnion($1)
        }
        missing += ConfigReader.sceneKeys.filter { !sceneKeys.contains($0) }.map { "scenes.NAME.\($0)" }
        #expect(missing.isEmpty, "keys the reader takes that upright.toml(5) does not show: \(missing.sorted())")
        #expect(onPage["player.mpv"] != nil || page.contains(".SS [player.mpv]"))
        // groff's own check, every warning on: nothing to say.
        let (_, groff) = try Self.run("/usr/bin/groff", ["-man", "-ww", "-z"], input: page)
        #expect(groff.isEmpty, "\(groff)")
    }
}
