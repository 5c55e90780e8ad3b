import Testing

@testable import SMIL

@Suite struct ParTests {
    static let zones = """
        <layout>
          <root-layout width="1920" height="1080"/>
          <region regionName="video" left="0" top="0" width="1440" height="1080"/>
          <region regionName="side" left="1440" top="0" width="480" height="1080"/>
          <region regionName="ticker" left="0" top="90%" width="100%" height="10%" z-index="2"/>
        </layout>
        """

    static func zoned(_ body: String) -> String {
        "<smil><head>\(zones)</head><body>\(body)</body></smil>"
    }

    @Test func regionsPlayAtOnceAndALastEndsThePar() throws {
        let body = """
            <par>
              <video src="clip.mp4" region="video"/>
              <seq region="side" repeatCount="indefinite">\(img("a", "region=\"side\" dur=\"2s\""))\(img("b", "region=\"side\" dur=\"2s\""))</seq>
              <brush color="#123" region="ticker" dur="3s"/>
            </par>
            """
        var run = try Run(Self.zoned(body), lengths: ["clip.mp4": 5])
        run.run(until: 4.5)
        #expect(run.timed(.region(0)) == ["clip@0"])
        #expect(run.timed(.region(1)) == ["a@0", "b@2", "a@4"])
        #expect(run.timed(.region(2)) == ["#112233@0", "-@3"])
        // The seq repeats for ever: the par (with endsync="last") never ends, the body never
        // begins again.
        run.run(until: 30)
        #expect(run.p.rounds == 0)
    }

    @Test func endsyncFirstAndByIdAndAll() throws {
        let first = "<par endsync=\"first\">\(img("a", "dur=\"3s\""))<video src=\"v.mp4\"/></par>\(img("z"))"
        var run = try Run(smil(first), lengths: ["v.mp4": 2])
        run.run(until: 3.5)
        #expect(run.timed() == ["v@0", "z@2", "v@3"])

        let byID = """
            <par endsync="main">\(img("a", "dur=\"1s\""))<video xml:id="main" src="v.mp4"/></par>\(img("z"))
            """
        run = try Run(smil(byID), lengths: ["v.mp4": 4])
        run.run(until: 4.5)
        #expect(run.timed() == ["v@0", "z@4"])

        let all = """
            <par endsync="all">\(img("a", "dur=\"1s\""))\(img("b", "begin=\"2s\" dur=\"1s\""))</par>\(img("z"))
            """
        run = try Run(smil(all))
        run.run(until: 3.5)
        #expect(run.timed() == ["a@0", "-@1", "b@2", "z@3"])
    }

    @Test func aFrozenPictureStaysUntilItsParEnds() throws {
        let body = "<par dur=\"3s\">\(img("still", ""))\(img("late", "begin=\"1s\" dur=\"1s\""))</par>"
        var run = try Run(smil(body))
        run.run(until: 2.5)
        #expect(run.timed() == ["still@0", "late@1", "still@2"])
    }

    @Test func aSyncbaseBeginFollowsAnotherElementsEnd() throws {
        let body = """
            <par>
              <video xml:id="intro" src="intro.mp4"/>
              \(img("after", "begin=\"intro.end+1s\" dur=\"1s\""))
              \(img("with", "begin=\"intro.begin+0.5s\" dur=\"0.25s\""))
            </par>
            """
        var run = try Run(smil(body), lengths: ["intro.mp4": 2])
        run.run(until: 3.5)
        #expect(run.timed() == ["intro@0", "with@0.5", "intro@0.75", "after@3"])
    }

    @Test func restartRulesKeepOrRefuseAnotherBegin() throws {
        let body = """
            <par>
              \(img("always", "begin=\"0s;1s\" dur=\"2s\" region=\"video\""))
              \(img("whenNotActive", "begin=\"0s;1s;2.5s\" dur=\"2s\" restart=\"whenNotActive\" region=\"side\""))
              \(img("never", "begin=\"0s;2.5s\" dur=\"2s\" restart=\"never\" region=\"ticker\""))
            </par>
            """
        var run = try Run(Self.zoned(body))
        run.run(until: 4)
        #expect(run.timed(.region(0)) == ["always@0", "always@1", "-@3"])
        #expect(run.timed(.region(1)) == ["whenNotActive@0", "-@2", "whenNotActive@2.5"])
        #expect(run.timed(.region(2)) == ["never@0", "-@2"])
    }

    @Test func aRepeatingSeqOfNothingEndsInsteadOfSpinning() throws {
        let body = "<seq repeatCount=\"indefinite\">\(img("a", "")) \(img("b", ""))</seq>\(img("z"))"
        var run = try Run(smil(body))
        run.run(until: 1.5)
        #expect(run.timed() == ["z@0", "z@1"])
        #expect(run.p.rounds == 1)
    }

    @Test func keysAndNotificationsBeginWhatWaitsForThem() throws {
        let body = """
            <excl dur="indefinite">
              \(img("key", "begin=\"accesskey(w)\" dur=\"1s\""))
              \(img("note", "begin=\"notify(heidewitzka)\" dur=\"1s\""))
            </excl>
            """
        var run = try Run(smil(body))
        run.run(
            until: 5,
            inputs: [
                (1, { .event(.accesskey("w"), $0) }), (3, { .event(.notify("heidewitzka"), $0) }),
                (4.5, { .event(.notify("other"), $0) }),
            ])
        #expect(run.timed() == ["key@1", "-@2", "note@3", "-@4"])
    }

    @Test func aKeyPressedForMonthsPilesUpNothing() throws {
        let body = "<excl dur=\"indefinite\">\(img("key", #"begin="accesskey(w)" dur="1s""#))</excl>"
        var run = try Run(smil(body))
        for k in 1...5000 {
            _ = run.p.handle(.event(.accesskey("w"), run.moment(Double(k) * 600)))
        }
        let key = try #require(run.p.shown[.root]?.node)
        #expect(run.p.states[key].begins.count <= 1)
        #expect(run.p.states.map(\.begins.count).max() ?? 0 <= 1)
    }

    @Test func whatAContainerLeftFrozenGoesWhenItBeginsAgain() throws {
        let body = #"<par dur="6s"><seq begin="0s;3s"><par begin="1s">"# + img("a", "") + "</par></seq></par>"
        var run = try Run(smil(body))
        run.run(until: 7.5)
        #expect(run.timed() == ["a@1", "-@3", "a@4", "-@6", "a@7"])
    }
}
