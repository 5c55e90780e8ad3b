import Foundation
import Glibc
import TestSupport
import Testing

/// The proof-of-play log from a real `upright play`: what played, what failed and why, rotated by size.
@Suite("The proof-of-play log")
struct ProofOfPlayLogTests {
    @Test func whatPlayedAndWhatFailedAreLinesRotatedBySize() async throws {
        let dir = NSTemporaryDirectory() + "pop-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = "av://lavfi:color=c=red:s=64x64:r=25:d=0.5"
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = ["\(clip)", "\(dir)/missing.mp4"]
        [proof_of_play]
        file = "\(dir)/plays.jsonl"
        max_mb = 0.001
        keep = 2
        [metrics]
        textfile = "\(dir)/upright.prom"
        interval = 1
        items = true
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { play.process.send(SIGKILL) }
        let files = ["plays.jsonl", "plays.jsonl.1", "plays.jsonl.2"].map { dir + "/" + $0 }
        func lines() -> [String] {
            files.reversed().flatMap {
                ((try? String(contentsOfFile: $0, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            }
        }
        func ended(_ lines: [String]) -> [String] {
            lines.filter { $0.contains(#"{"item": "\#(clip)", "start": "20"#) && $0.contains(#""outcome": "ended""#) }
        }
        func failed(_ lines: [String]) -> Bool {
            lines.contains {
                $0.hasPrefix(#"{"item": "\#(dir)/missing.mp4""#) && $0.contains(#""outcome": "failed", "reason": "#)
            }
        }
        // Stopped once the log has rotated and holds a clip played and the missing file (however
        // long the start took on a loaded machine).
        let logged = await play.waitFor(
            { _ in
                let all = lines()
                return FileManager.default.fileExists(atPath: files[1]) && !ended(all).isEmpty && failed(all)
            }, seconds: 30)
        #expect(logged, "\(lines())\n\(play.stderr)")
        play.process.send(SIGTERM)
        #expect(await play.waitFor({ _ in !play.process.isRunning }, seconds: 20))

        let kept = lines()
        #expect(FileManager.default.fileExists(atPath: files[1]), "rotated at 1000 bytes")
        #expect(!FileManager.default.fileExists(atPath: dir + "/plays.jsonl.3"), "two rotated files kept")
        for path in files where FileManager.default.fileExists(atPath: path) {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size <= 1000, "\(path): \(size) bytes")
        }
        let ended = ended(kept)
        #expect(!ended.isEmpty, "\(kept)")
        // The clip is 0.5 s long; on a loaded machine mpv may take longer to play it (and its start
        // and end are events that may lag), never less than most of it.
        #expect(
            ended.allSatisfy { line in
                line.firstMatch(of: /"seconds": ([0-9.]+)/).flatMap { Double($0.1) }.map { (0.35...2).contains($0) }
                    ?? false
            }, "\(ended)")
        #expect(
            kept.last?.contains(#""outcome": "stopped""#) == true || kept.last?.contains("ended") == true, "\(kept)")
        let metrics = (try? String(contentsOfFile: dir + "/upright.prom", encoding: .utf8)) ?? ""
        #expect(metrics.contains(#"upright_item_plays_total{item="\#(clip)"}"#), "\(metrics)")
    }
}
