import Testing

@testable import SMIL

@Suite struct ZonePlanTests {
    static func read() throws -> SMILDocument {
        try SMILDocument.read(
            Array(
                """
                <smil><head><layout><root-layout width="1920" height="1080" backgroundColor="#101010"/>
                  <region regionName="ticker" left="0" top="972" width="1920" height="108" z-index="5" backgroundColor="navy"/>
                  <region regionName="video" left="0" top="0" width="1440" height="1080" z-index="1" fit="meet"/>
                  <region regionName="side" left="1440" top="0" width="480" height="1080" backgroundColor="transparent"/>
                </layout></head><body><par>
                  <img src="logo.png" region="side" dur="5s"/>
                  <video src="a.mp4" region="video"/><video src="b.mp4" region="side"/>
                  <brush color="#ff0" region="ticker" dur="5s"/><audio src="music.mp3"/>
                  <img src="full.jpg" dur="1s" fit="slice"/>
                </par></body></smil>
                """.utf8), file: "p.smil"
        ).get()
    }

    @Test func theFirstVideosSlotIsMpvsAndTheRestAreZonesInTheirStackingOrder() throws {
        let plan = ZonePlan(try Self.read())
        #expect(plan.videoSlot == .region(1))
        // The video's (its cover), the root (below every region), then side (z 0), then the
        // ticker (z 5).
        #expect(plan.ids == [.region(1): 1, .root: 2, .region(2): 3, .region(0): 4])
        #expect(plan.dropped.isEmpty)
    }

    @Test func eachSlotDrawsItsPictureOrBrushOrItsBackground() throws {
        let doc = try Self.read()
        let plan = ZonePlan(doc)
        func shown(_ i: Int) -> Shown {
            guard case .media(let m) = doc.nodes[i].kind else { fatalError() }
            return Shown(node: i, serial: 1, media: m, held: false, position: 0)
        }
        let logo = doc.nodes.firstIndex { if case .media(let m) = $0.kind { m.src == "logo.png" } else { false } }!
        let brush = doc.nodes.firstIndex { if case .media(let m) = $0.kind { m.kind == .brush } else { false } }!
        let full = doc.nodes.firstIndex { if case .media(let m) = $0.kind { m.src == "full.jpg" } else { false } }!
        guard case .picture(let src, let options) = plan.drawing(shown(logo), in: .region(2), of: doc) else {
            Issue.record("the logo is no picture")
            return
        }
        // No fit on the picture or its region: SMIL's default, hidden (its own size, top left).
        #expect(src == "logo.png" && options["video-unscaled"] == "yes" && options["video-align-x"] == "-1")
        #expect(options["background"] == "#000000")
        #expect(plan.drawing(shown(brush), in: .region(0), of: doc) == .color("#ffff00"))
        if case .picture(_, let o) = plan.drawing(shown(full), in: .root, of: doc) {
            #expect(o["panscan"] == "1" && o["background"] == "#101010")
        } else {
            Issue.record("the full-screen picture is no picture")
        }
        #expect(plan.drawing(nil, in: .region(0), of: doc) == .color("#000080"))
        #expect(plan.drawing(nil, in: .region(2), of: doc) == .none)
        #expect(plan.drawing(nil, in: .root, of: doc) == .none)
        #expect(plan.drawing(nil, in: .region(1), of: doc) == .color("#000000"))
        let video = doc.nodes.firstIndex { if case .media(let m) = $0.kind { m.src == "a.mp4" } else { false } }!
        #expect(plan.drawing(shown(video), in: .region(1), of: doc) == .none)
    }

    @Test func everyFitSetsAllFiveOptions() throws {
        for fit in SMILDocument.Fit.allCases {
            #expect(
                ZonePlan.mpvOptions(fit: fit).keys.sorted() == [
                    "keepaspect", "panscan", "video-align-x", "video-align-y", "video-unscaled",
                ])
        }
    }

    @Test func aTextIsItsFilesWords() throws {
        let doc = try SMILDocument.read(
            Array(
                #"<smil><body><par><text src="news.txt" dur="5s"/><ref src="a.html" dur="1s"/></par></body></smil>"#
                    .utf8),
            file: "t.smil"
        ).get()
        let plan = ZonePlan(doc)
        let shown = doc.nodes.indices.compactMap { i -> Shown? in
            guard case .media(let m) = doc.nodes[i].kind else { return nil }
            return Shown(node: i, serial: 1, media: m, held: false, position: 0)
        }
        #expect(plan.drawing(shown[0], in: .root, of: doc) == .text(src: "news.txt", background: nil))
        #expect(plan.drawing(shown[1], in: .root, of: doc) == ZonePlan.Drawing.none)
    }
}
