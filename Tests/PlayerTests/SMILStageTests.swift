import Foundation
import MPV
import Player
import SMIL
import Testing

/// A SMIL presentation on a real libmpv, drawn by the software renderer: every zone at once.
@Suite struct SMILStageTests {
    static func files(in dir: String) throws {
        var ppm = Array("P6\n4 2\n255\n".utf8)
        for _ in 0..<2 { ppm += [0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255] }
        try Data(ppm).write(to: URL(fileURLWithPath: dir + "/halves.ppm"))
        try "OPEN 9–17".write(toFile: dir + "/news.txt", atomically: true, encoding: .utf8)
    }

    static let index = """
        <smil><head><layout><root-layout width="1280" height="720"/>
          <region regionName="video" left="0" top="0" width="50%" height="50%"/>
          <region regionName="picture" left="50%" top="0" width="50%" height="50%"/>
          <region regionName="brush" left="0" top="50%" width="50%" height="50%"/>
          <region regionName="ticker" left="50%" top="50%" width="50%" height="50%" backgroundColor="#000040"/>
        </layout></head><body><par>
          <video src="av://lavfi:color=c=0xffffff:size=320x180:rate=25" region="video" dur="10s"/>
          <img src="halves.ppm" region="picture" dur="10s" fit="fill"/>
          <brush color="#ff0000" region="brush" dur="2s"/>
          <text src="news.txt" region="ticker" dur="10s"/>
        </par></body></smil>
        """

    /// The colour class of a pixel: r, g, b, w (white), k (black), n (navy), or mixed.
    static func kind(_ f: MPVFrame, _ x: Int, _ y: Int) -> String {
        let (r, g, b) = f.rgb(x, y)
        switch (r > 200, g > 200, b > 200) {
        case (true, true, true): return "w"
        case (true, false, false): return "r"
        case (false, true, false): return "g"
        case (false, false, true): return "b"
        default: return r < 30 && g < 30 && b < 30 ? "k" : (b > 40 && r < 30 ? "n" : "?")
        }
    }

    @Test func everyZoneShowsAtOnceAndABrushThatEndsLeavesItsZone() async throws {
        let dir = NSTemporaryDirectory() + "stage-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.files(in: dir)
        let doc = try SMILDocument.read(Array(Self.index.utf8), file: dir + "/index.smil").get()
        let mpv = try MPVHandle(
            options: [("vo", "libmpv"), ("ao", "null"), ("terminal", "no"), ("idle", "yes"), ("keep-open", "yes")],
            separateProcess: false)
        let renderer = try MPVSoftwareRenderer(mpv)
        defer { renderer.close() }
        let stage = SMILStage(doc, mpv: mpv, canvas: Canvas(width: 640, height: 360)) { src in
            src.hasPrefix("av://") ? .success(src) : MediaAddress.resolve(src, against: dir + "/index.smil")
        }
        var p = Presentation(doc, at: Moment(elapsed: 0, utc: 0, utcOffset: 0))
        stage.apply(p.start())
        #expect(stage.problems.isEmpty, "\(stage.problems)")
        // The video's middle, the picture's two halves, the brush, the ticker's background and words.
        let points = [(160, 90), (400, 90), (560, 90), (160, 270), (636, 184)]
        var seen: [String] = []
        var words = false
        for _ in 0..<150 {
            let f = try renderer.render(width: 640, height: 360)
            seen = points.map { Self.kind(f, $0.0, $0.1) }
            // The words: light pixels (mpv's OSD blends them a little) on the navy background.
            words = (330..<640).contains { x in (190..<360).contains { y in f.rgb(x, y).r > 150 && f.rgb(x, y).g > 150 }
            }
            if seen == ["w", "g", "b", "r", "n"], words { break }
            usleep(20_000)
        }
        #expect(seen == ["w", "g", "b", "r", "n"])
        #expect(words, "the ticker shows no words")
        stage.apply(p.handle(.tick(Moment(elapsed: 2, utc: 2, utcOffset: 0))))
        let f = try renderer.render(width: 640, height: 360)
        #expect(Self.kind(f, 160, 270) == "k")
        #expect(Self.kind(f, 400, 90) == "g")
    }

    /// `fill`: a 4:3 video stretched to its 16:9 zone, edge to edge, and nothing of it outside
    /// (mpv 0.35 keeps no margin without `keepaspect`: the zone's shape is forced on the video).
    @Test func aFilledVideoCoversItsZoneAndNoMore() async throws {
        let index = """
            <smil><head><layout><root-layout width="1280" height="720"/>
              <region regionName="video" left="0" top="0" width="50%" height="50%"/>
            </layout></head><body>
              <video src="av://lavfi:color=c=0xffffff:size=320x240:rate=25" region="video" dur="10s" fit="fill"/>
            </body></smil>
            """
        let doc = try SMILDocument.read(Array(index.utf8), file: "/tmp/index.smil").get()
        let mpv = try MPVHandle(
            options: [("vo", "libmpv"), ("ao", "null"), ("terminal", "no"), ("idle", "yes"), ("keep-open", "yes")],
            separateProcess: false)
        let renderer = try MPVSoftwareRenderer(mpv)
        defer { renderer.close() }
        let stage = SMILStage(doc, mpv: mpv, canvas: Canvas(width: 640, height: 360)) { .success($0) }
        var p = Presentation(doc, at: Moment(elapsed: 0, utc: 0, utcOffset: 0))
        stage.apply(p.start())
        #expect(stage.problems.isEmpty, "\(stage.problems)")
        // The zone's corners and middle, then outside it to the right and below.
        let points = [(4, 4), (316, 4), (160, 90), (4, 176), (400, 90), (160, 270)]
        var seen: [String] = []
        for _ in 0..<150 {
            let f = try renderer.render(width: 640, height: 360)
            seen = points.map { Self.kind(f, $0.0, $0.1) }
            if seen == ["w", "w", "w", "w", "k", "k"] { break }
            usleep(20_000)
        }
        #expect(seen == ["w", "w", "w", "w", "k", "k"])
    }
}
