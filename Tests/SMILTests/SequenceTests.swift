import Testing

@testable import SMIL

@Suite struct SequenceTests {
    @Test func aSeqPlaysInOrderWithItsRepeatsAndTheBodyBeginsAgain() throws {
        let body = """
            \(img("begin"))
            <brush color="yellow" dur="1s"/>
            <seq>\(img("0001"))\(img("0002"))</seq>
            <seq repeatCount="2">\(img("0006"))\(img("0007"))</seq>
            \(img("end"))
            """
        var run = try Run(smil(body))
        run.run(until: 9.5)
        #expect(
            run.timed() == [
                "begin@0", "#ffff00@1", "0001@2", "0002@3", "0006@4", "0007@5", "0006@6", "0007@7", "end@8",
                "begin@9",
            ])
        #expect(run.p.rounds == 1)
    }

    @Test func picturesWithoutADurationTakeNoTimeInASeq() throws {
        let body = """
            \(img("begin", "dur=\"2s\""))
            <seq repeatCount="2">\(img("0006", ""))\(img("0007", ""))\(img("0010"))</seq>
            \(img("end", "dur=\"2s\""))
            """
        var run = try Run(smil(body))
        run.run(until: 6)
        #expect(run.timed() == ["begin@0", "0010@2", "0010@3", "end@4", "begin@6"])
    }

    @Test func aVideoLastsItsMediaAndRepeatsWithIt() throws {
        let body = """
            <video src="clip.mp4" repeatCount="2"/>
            \(img("end"))
            """
        var run = try Run(smil(body), lengths: ["clip.mp4": 2.5])
        run.run(until: 6)
        #expect(run.timed() == ["clip@0", "clip@2.5", "end@5", "clip@6"])
    }

    @Test func aVideosStaleEndIsNoNews() throws {
        var run = try Run(smil("<video src=\"clip.mp4\" repeatCount=\"3\"/>"))
        let node = run.p.shown[.root]!.node
        run.run(until: 1, inputs: [(1, { .mediaEnded(node: node, serial: 1, $0) })])
        run.run(until: 2, inputs: [(2, { .mediaEnded(node: node, serial: 1, $0) })])
        #expect(run.timed() == ["clip@0", "clip@1"])
        #expect(run.p.shown[.root]?.serial == 2)
    }

    /// A missing video in a loop of its own: skipped at once the first time, then held 5 s a
    /// failure (within 10 s of the last), never a busy loop; one that plays again is played.
    @Test func aVideoThatFailsAgainHoldsItsSlotFiveSeconds() throws {
        var run = try Run(smil("<seq repeatCount=\"indefinite\"><video src=\"gone.mp4\"/></seq>"))
        func fail(_ t: Double) -> [(Double, (Moment) -> SMILInput)] {
            [(t, { [p = run.p] in .mediaFailed(node: p.shown[.root]!.node, serial: p.shown[.root]!.serial, $0) })]
        }
        run.run(until: 0.1, inputs: fail(0.1))
        #expect(run.timed() == ["gone@0", "gone@0.1"], "skipped at once the first time")
        run.run(until: 0.2, inputs: fail(0.2))
        #expect(abs((run.p.nextChange ?? 0) - 5.2) < 1e-9, "held: it failed 0.1 s ago")
        run.run(until: 5.25)
        run.run(until: 5.3, inputs: fail(5.3))
        #expect(run.timed() == ["gone@0", "gone@0.1", "gone@5.2"])
        #expect(abs((run.p.nextChange ?? 0) - 10.3) < 1e-9)
        // A late failure of an interval that ended is no news.
        run.run(until: 5.4, inputs: [(5.4, { .mediaFailed(node: 3, serial: 1, $0) })])
        #expect(abs((run.p.nextChange ?? 0) - 10.3) < 1e-9)
    }

    @Test func anEmptyBodyRestsASecondBetweenRounds() throws {
        var run = try Run(smil(""))
        run.run(until: 3.5)
        #expect(run.p.rounds == 3)
        #expect(run.p.nextChange == 4)
    }

    @Test func durAndEndCutAContainerShort() throws {
        let body = """
            <seq dur="2.5s">\(img("a"))\(img("b"))\(img("c"))</seq>
            <par end="1s">\(img("d", "dur=\"5s\""))</par>
            \(img("e"))
            """
        var run = try Run(smil(body))
        run.run(until: 4.6)
        #expect(run.timed() == ["a@0", "b@1", "c@2", "d@2.5", "e@3.5", "a@4.5"])
    }

    @Test func repeatDurBoundsTheRepeats() throws {
        let body = "<seq repeatDur=\"2.5s\">\(img("a"))\(img("b"))</seq>\(img("z"))"
        var run = try Run(smil(body))
        run.run(until: 3.6)
        #expect(run.timed() == ["a@0", "b@1", "a@2", "z@2.5", "a@3.5"])
    }

    /// The form of garlic-player's `seq/5_media_repeats.smil`: in a `seq`, a child's begin list
    /// counts for its first value only.
    @Test func aSeqsChildBeginsOnceATurnAtItsFirstOffset() throws {
        let body = "\(img("begin"))\(img("1", #"begin="2s;3s;4s;5s;" dur="5s""#))\(img("2"))"
        var run = try Run(smil(body))
        run.run(until: 9.5)
        #expect(run.timed() == ["begin@0", "-@1", "1@3", "2@8", "begin@9"])
    }

    @Test func aVideosLastFrameNeverComesBackFromUnderAPictureThatEnds() throws {
        let body = #"<par dur="8s"><seq><video src="v.mp4"/>"# + img("after", #"dur="2s""#) + "</seq></par>"
        var run = try Run(smil(body), lengths: ["v.mp4": 3])
        run.run(until: 8.5)
        #expect(run.timed() == ["v@0", "after@3", "-@5", "v@8"])
    }
}
