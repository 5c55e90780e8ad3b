import Foundation
import Testing

@testable import Display

@Suite("The compositor that started Upright")
struct StartingCompositorTests {
    @Test func statLinesWithSpacesAndParenthesesInTheName() {
        #expect(StartingCompositor.fields("412 (sway) S 1 412 412 0 -1") ?? ("", 0) == ("S", 1))
        #expect(StartingCompositor.fields("77 (a (b) c) Z 412 77 77") ?? ("", 0) == ("Z", 412))
        #expect(StartingCompositor.fields("garbage") == nil)
    }

    @Test func theParentChainAndAnEndedCompositor() throws {
        let procfs = NSTemporaryDirectory() + "upright-procfs-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: procfs) }
        // init → greetd (300) → sway (412) → sh (500) → upright (501); 412 a zombie later.
        for (pid, line) in [
            (300, "300 (greetd) S 1"), (412, "412 (sway) S 300"), (500, "500 (sh) S 412"), (501, "501 (upright) R 500"),
        ] {
            try FileManager.default.createDirectory(atPath: "\(procfs)/\(pid)", withIntermediateDirectories: true)
            try line.write(toFile: "\(procfs)/\(pid)/stat", atomically: true, encoding: .utf8)
        }
        #expect(StartingCompositor.ancestors(of: 501, procfs: procfs) == [500, 412, 300])
        let sway = StartingCompositor(pid: 412, name: "sway")
        #expect(!sway.hasEnded(procfs: procfs))
        try "412 (sway) Z 300".write(toFile: "\(procfs)/412/stat", atomically: true, encoding: .utf8)
        #expect(sway.hasEnded(procfs: procfs))
        try FileManager.default.removeItem(atPath: "\(procfs)/412")
        #expect(sway.hasEnded(procfs: procfs))
    }
}
