import Foundation
import Testing

@Suite("upright check-smil")
struct CheckSMILTests {
    @Test func anIndexsZonesArePrintedInTimeAndWhatItLeavesOutIsNamed() async throws {
        let index = try temporaryFile(
            """
            <smil><head><layout><root-layout width="1920" height="1080"/>
              <region regionName="main" left="0" top="0" width="75%" height="100%"/>
              <region regionName="side" left="75%" top="0" width="25%" height="100%"/></layout></head>
            <body><par>
              <seq><video src="clip.mp4" region="main"/><img src="after.jpg" region="main" dur="2s"/></seq>
              <seq begin="wallclock(2026-04-01T10:00:05)"><brush color="red" region="side" dur="1s"/></seq>
              <switch/>
            </par></body></smil>
            """)
        defer { try? FileManager.default.removeItem(atPath: index) }
        let run = try await upright([
            "check-smil", index, "--seconds", "10", "--video-seconds", "3", "--start", "2026-04-01T10:00:00",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "\(index):7:3: warning: 'switch' is not supported; ignored\n")
        #expect(
            run.stdout == """
                    0.000  region 'main'  clip.mp4
                    3.000  region 'main'  after.jpg
                    5.000  region 'main'  -
                    5.000  region 'side'  brush #ff0000
                    6.000  the body begins again
                    6.000  region 'main'  clip.mp4
                    6.000  region 'side'  -
                    9.000  region 'main'  after.jpg

                """)
    }

    @Test func aMalformedIndexIsRefusedAtItsPlace() async throws {
        let index = try temporaryFile("<smil><body><seq><img src=\"a\"></seq></body></smil>")
        defer { try? FileManager.default.removeItem(atPath: index) }
        let run = try await upright(["check-smil", index])
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "\(index):1:37: error: malformed XML: tag name mismatch ('img' opened at 1:18 is not closed)\n")
    }
}

@Suite("upright check-config with SMIL indexes")
struct CheckConfigSMILTests {
    @Test func aSMILEntryIsSaidForWhatItIs() async throws {
        let index = try temporaryFile(
            "<smil><body><img src=\"a.jpg\" dur=\"1s\"/><video src=\"b.mp4\"/><switch/></body></smil>",
            suffix: ".smil")
        let broken = try temporaryFile("<smil><body>", suffix: ".smil")
        let config = try temporaryFile(
            "[player]\nplaylist = [\"\(index)\", \"https://cms.example/screens/lobby.smil?v=2\", \"\(broken)\"]\n")
        defer { for f in [index, broken, config] { try? FileManager.default.removeItem(atPath: f) } }
        let run = try await upright(["check-config", config])
        #expect(run.status == 0, "\(run.stderr)")
        let plays = "played in place of the playlist's other entries"
        #expect(
            run.stderr.contains(
                "upright: playlist: \(index): a SMIL index: 2 media in 0 regions, 1 warning (upright check-smil lists them); \(plays)\n"
            ), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "upright: playlist: https://cms.example/screens/lobby.smil?v=2: a SMIL index on the network, \(plays), through the cache"
            ))
        #expect(
            run.stderr.contains(
                "upright: playlist: \(broken): a SMIL index, refused: \(broken):1:13: error: malformed XML"))
    }
}
