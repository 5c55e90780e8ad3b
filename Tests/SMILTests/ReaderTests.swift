import Testing

@testable import SMIL

@Suite struct ReaderTests {
    func read(_ text: String) throws -> SMILDocument {
        try SMILDocument.read(Array(text.utf8), file: "index.smil").get()
    }

    func refusal(_ text: String) -> String {
        switch SMILDocument.read(Array(text.utf8), file: "index.smil") {
        case .success: "read"
        case .failure(let d): d.description
        }
    }

    @Test func theLayoutsRegionsAreInTheRootsPixels() throws {
        let doc = try read(
            """
            <smil><head>
              <meta http-equiv="Refresh" content="60"/><meta name="title" content="Lobby"/>
              <layout>
                <root-layout width="1280" height="720" backgroundColor="navy"/>
                <region regionName="main" left="0" top="0" width="75%" height="100%" backgroundColor="#f00"/>
                <region xml:id="side" left="75%" top="0px" right="0" height="50%" z-index="3" fit="meetBest">
                  <region regionName="logo" left="10" top="10" width="100" height="50"/>
                </region>
                <region regionName="ticker" bottom="0" height="72" width="100%"/>
              </layout>
            </head><body/></smil>
            """)
        #expect(doc.refresh == 60)
        #expect(doc.title == "Lobby")
        #expect(doc.layout.width == 1280 && doc.layout.height == 720 && doc.layout.backgroundColor == "#000080")
        let boxes = doc.layout.regions.map {
            "\($0.name) \(Int($0.left)),\(Int($0.top)) \(Int($0.width))x\(Int($0.height))"
        }
        #expect(boxes == ["main 0,0 960x720", "side 960,0 320x360", "logo 970,10 100x50", "ticker 0,648 1280x72"])
        #expect(doc.layout.regions[0].backgroundColor == "#ff0000")
        #expect(doc.layout.regions[1].zIndex == 3 && doc.layout.regions[2].zIndex == 3)
        #expect(doc.layout.regions[1].fit == .meetBest)
        #expect(doc.diagnostics.isEmpty)
    }

    @Test func stateEntriesFillTheMediasAddresses() throws {
        let doc = try read(
            """
            <smil><head><state><data><__url001>media/a.jpg</__url001><url2>b.mp4</url2></data></state></head>
            <body><img src="{__url001}" dur="1"/><video src="{url2}"/><img src="{nope}" dur="1"/></body></smil>
            """)
        let sources = doc.nodes.compactMap { node -> String? in
            if case .media(let m) = node.kind { return m.src }
            return nil
        }
        #expect(sources == ["media/a.jpg", "b.mp4"])
        #expect(
            doc.diagnostics.map(\.description) == [
                "index.smil:2:59: warning: '{nope}' names no entry of the index's state; 'img' ignored"
            ])
    }

    @Test func whatIsNotPlayedIsNamedAtItsPlaceAndTheRestPlays() throws {
        let doc = try read(
            """
            <smil>
              <head><transition xml:id="fade" type="fade"/></head>
              <body>
                <img src="a.jpg" dur="1s"/>
                <switch><img src="b.jpg"/></switch>
                <img src="c.jpg" dur="soon"/>
                <img src="d.jpg" begin="tomorrow" dur="1s"/>
                <video src="e.mp4" expr="adapi-compare(adapi-date(), '2022-01-01') &gt;= 0"/>
                <img src="f.jpg" dur="1s" region="nowhere"/>
                <excl><priorityClass peers="sometimes"><img src="g.jpg" begin="0"/></priorityClass></excl>
              </body>
            </smil>
            """)
        #expect(
            doc.diagnostics.map(\.description) == [
                "index.smil:2:9: warning: 'transition' in the head is not supported; ignored",
                "index.smil:5:5: warning: 'switch' is not supported; ignored",
                "index.smil:6:5: warning: dur 'soon' is not a clock value; 'img' left out",
                "index.smil:7:5: warning: begin value 'tomorrow' is not a time value; 'img' left out",
                "index.smil:8:5: warning: expr=\"adapi-compare(adapi-date(), '2022-01-01') >= 0\" is taken as false: Upright evaluates no expressions; 'video' left out",
                "index.smil:9:5: warning: no region is named 'nowhere'; 'img' plays in the whole layout",
                "index.smil:10:11: warning: peers='sometimes' is not a value of 'peers'; the default taken",
            ])
        #expect(doc.nodes.map(\.name) == ["body", "img", "img", "excl", "priorityClass", "img"])
    }

    @Test(arguments: [
        (
            "<smil><body><seq><img src=\"a\"></seq></body></smil>",
            "index.smil:1:37: error: malformed XML: tag name mismatch ('img' opened at 1:18 is not closed)"
        ),
        (
            "<smil>\n<body>\n<img src=\"a\" dur=1s/>\n</body></smil>",
            "index.smil:3:18: error: malformed XML: an attribute value not in quotes ('body' opened at 2:1 is not closed)"
        ),
        ("<html><body/></html>", "index.smil:1:1: error: the root element is 'html', not 'smil'"),
        ("<smil><head/></smil>", "index.smil:1:1: error: the index has no 'body'"),
        (" \n", "index.smil: error: the index is empty"),
        (
            "<!DOCTYPE smil [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><smil><body><img src=\"&x;\"/></body></smil>",
            "index.smil:1:83: error: malformed XML: entity is external ('body' opened at 1:64 is not closed)"
        ),
    ])
    func aMalformedIndexIsRefusedAtItsBadTag(text: String, said: String) {
        #expect(refusal(text) == said)
    }

    @Test func timingAttributesRead() throws {
        let doc = try read(
            """
            <smil><body><par endsync="clip" dur="indefinite" repeatCount="2.5" repeatDur="1:30" fill="hold" restart="never">
              <video xml:id="clip" src="v.mp4" begin="0s;2s; clip.end+1.5s;a.activateEvent;accesskey(w)-1s;wallclock(12:00)" end="indefinite"/>
            </par></body></smil>
            """)
        let par = doc.nodes[1].timing, clip = doc.nodes[2].timing
        #expect(par.endsync == .id("clip") && par.dur == .indefinite && par.repeatCount == 2.5 && par.repeatDur == 90)
        #expect(par.fill == .hold && par.restart == .never)
        #expect(clip.begin?.count == 6 && clip.end == [.indefinite])
        #expect(clip.begin?[2] == .syncbase(id: "clip", end: true, offset: 1.5))
        #expect(clip.begin?[3] == .event(.element(id: "a", name: "activateEvent"), offset: 0))
        #expect(clip.begin?[4] == .event(.accesskey("w"), offset: -1))
    }

    @Test(arguments: [
        ("5", 5.0), ("1.5s", 1.5), ("250ms", 0.25), ("2min", 120), ("1h", 3600), ("01:02:03.5", 3723.5), ("02:30", 150),
        (" 7s ", 7),
    ])
    func clockValues(text: String, seconds: Double) {
        #expect(ClockValue.seconds(Substring(text)) == seconds)
    }

    @Test(arguments: ["", "s", "1:2:3:4", "00:61", "1e3", "-5", "1.s", "12345678901s", "5 s"])
    func notClockValues(text: String) {
        #expect(ClockValue.seconds(Substring(text)) == nil)
    }

    @Test func anIndexIsReadAsUTF8OrLatin1AndAnyOtherEncodingIsRefused() throws {
        let refused = refusal("<?xml version=\"1.0\" encoding=\"us\"?><smil><body/></smil>")
        #expect(refused == "index.smil:1:21: error: the index's encoding 'us' is not UTF-8, US-ASCII or ISO-8859-1")
        var latin1 = Array(
            "<?xml version='1.0' encoding='ISO-8859-1'?>\n<smil><head><meta name='title' content='Caf".utf8)
        latin1 += [0xE9] + Array("'/></head><body><img src='x.jpg' dur='1'/></body></smil>".utf8)
        let doc = try SMILDocument.read(latin1, file: "index.smil").get()
        #expect(doc.title == "Café")
        let notUTF8 = Array("<smil>\n<body>\n".utf8) + [0xFF, 0xFE] + Array("</body></smil>".utf8)
        if case .failure(let d) = SMILDocument.read(notUTF8, file: "index.smil") {
            #expect(
                d.description
                    == "index.smil:3: error: the index is not UTF-8 text (and names no encoding Upright reads)")
        }
    }
}
