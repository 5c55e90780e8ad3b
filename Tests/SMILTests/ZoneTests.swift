import Testing

@testable import SMIL

@Suite struct ZoneTests {
    static func read() throws -> SMILDocument {
        try SMILDocument.read(
            Array(
                """
                <smil><head><layout><root-layout width="1920" height="1080"/>
                  <region regionName="video" left="0" top="0" width="1440" height="1080"/>
                  <region regionName="side" left="1440" top="0" width="480" height="540"/>
                  <region regionName="ticker" left="0" top="972" width="1920" height="108"/>
                </layout></head><body/></smil>
                """.utf8), file: "z.smil"
        ).get()
    }

    func zones(_ canvas: Canvas) throws -> [String] {
        let doc = try Self.read()
        return [Slot.root, .region(0), .region(1), .region(2)].map { slot in
            let z = doc.zone(slot, on: canvas)!
            return "\(z.x),\(z.y) \(z.width)x\(z.height)"
        }
    }

    @Test func theLayoutFillsTheWindowAndTurnsAsOnePicture() throws {
        let doc = try Self.read()
        #expect(
            try zones(Canvas(width: 1920, height: 1080)) == [
                "0,0 1920x1080", "0,0 1440x1080", "1440,0 480x540", "0,972 1920x108",
            ])
        #expect(
            try zones(Canvas(width: 1280, height: 720)) == [
                "0,0 1280x720", "0,0 960x720", "960,0 320x360", "0,648 1280x72",
            ])
        // A portrait window with the interface upright: the layout is squeezed to it.
        #expect(
            try zones(Canvas(width: 1080, height: 1920)) == [
                "0,0 1080x1920", "0,0 810x1920", "810,0 270x960", "0,1728 1080x192",
            ])
        // The surface strategy on a portrait panel: the picture is turned 90° clockwise in it,
        // so the viewer's top edge is the window's right edge, and the ticker at the left.
        #expect(
            try zones(Canvas(width: 1080, height: 1920, angle: 90)) == [
                "0,0 1080x1920", "0,0 1080x1440", "540,1440 540x480", "0,0 108x1920",
            ])
        #expect(
            try zones(Canvas(width: 1920, height: 1080, angle: 180)) == [
                "0,0 1920x1080", "480,0 1440x1080", "0,540 480x540", "0,0 1920x108",
            ])
        #expect(
            try zones(Canvas(width: 1080, height: 1920, angle: 270)) == [
                "0,0 1080x1920", "0,480 1080x1440", "0,0 540x480", "972,0 108x1920",
            ])
        #expect(doc.zone(.audio, on: Canvas(width: 10, height: 10)) == nil)
    }

    @Test func zonesThatMeetShareTheirEdgeAtAnySize() throws {
        let doc = try Self.read()
        for width in [333, 1000, 1366, 1919] {
            for height in [199, 768, 1081] {
                let canvas = Canvas(width: width, height: height)
                let video = doc.zone(.region(0), on: canvas)!, side = doc.zone(.region(1), on: canvas)!
                #expect(video.x + video.width == side.x)
                #expect(side.x + side.width == width)
            }
        }
    }

    @Test func theVideoIsPutInItsZoneByMargins() throws {
        let doc = try Self.read()
        let canvas = Canvas(width: 1920, height: 1080)
        let m = SMILDocument.margins(of: doc.zone(.region(1), on: canvas)!, on: canvas)
        #expect(m["video-margin-ratio-left"] == 0.75 && m["video-margin-ratio-right"] == 0)
        #expect(m["video-margin-ratio-top"] == 0 && m["video-margin-ratio-bottom"] == 0.5)
    }

    @Test(arguments: [
        (SMILDocument.Fit.fill, "0,0 480x540"), (.meet, "0,105 480x330"), (.meetBest, "0,105 480x330"),
        (.slice, "-153,0 786x540"), (.hidden, "0,0 800x550"),
    ])
    func mediaFitsItsZone(fit: SMILDocument.Fit, placed: String) throws {
        let z = SMILDocument.fitted((800, 550), in: (480, 540), fit: fit)
        #expect("\(z.x),\(z.y) \(z.width)x\(z.height)" == placed)
        let small = SMILDocument.fitted((100, 50), in: (480, 540), fit: .meetBest)
        #expect([small.x, small.y, small.width, small.height] == [190, 245, 100, 50])
    }
}

@Suite struct ZoneTextTests {
    @Test func wordsSitInTheirZoneFromTheViewersTopLeftAndTurnWithThePicture() {
        let zone = Zone(x: 0, y: 972, width: 1920, height: 108)
        #expect(
            ZoneText.ass("Open {today}\n9–17", in: zone, on: Canvas(width: 1920, height: 1080))
                == "{\\an7\\pos(0,972)\\clip(0,972,1920,1080)\\frz0\\fs40\\c&HFFFFFF&\\bord2}Open \\{today\\}\\N9–17")
        let turned = Zone(x: 0, y: 0, width: 108, height: 1920)
        #expect(
            ZoneText.ass("Hello", in: turned, on: Canvas(width: 1080, height: 1920, angle: 90))
                == "{\\an7\\pos(108,0)\\clip(0,0,108,1920)\\frz-90\\fs81\\c&HFFFFFF&\\bord2}Hello")
        let long = ZoneText.ass(String(repeating: "x", count: 5000), in: zone, on: Canvas(width: 1920, height: 1080))
        #expect(long.hasSuffix(String(repeating: "x", count: 10) + "…"))
        #expect(long.count < ZoneText.maxCharacters + 100)
    }
}
