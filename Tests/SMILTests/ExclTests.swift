import Testing

@testable import SMIL

@Suite struct ExclTests {
    /// The form of garlic-player's `excl/peers/1_stop.smil`: peers that stop each other.
    @Test func peersThatStopEachOther() throws {
        let body = """
            \(img("begin"))
            <excl>\(img("2", "begin=\"1s\" dur=\"1s\""))\(img("1", "begin=\"0s\" dur=\"10s\""))</excl>
            <excl><priorityClass peers="stop">
              \(img("1", "begin=\"0s;1s\" dur=\"1s\""))\(img("2", "begin=\"0s\" dur=\"1s\""))
              \(img("5", "begin=\"0s\" dur=\"1s\""))
            </priorityClass></excl>
            <excl><priorityClass peers="stop">
              \(img("6", "begin=\"0s;5;\" dur=\"1s\""))\(img("7", "begin=\"1s\" dur=\"1s\""))
              \(img("8", "begin=\"2s\" dur=\"1s\""))
            </priorityClass></excl>
            <excl><priorityClass>
              \(img("3", "begin=\"0s\" end=\"1s\""))\(img("4", "begin=\"0s\" end=\"1s\""))
            </priorityClass></excl>
            <excl><priorityClass>
              <seq begin="0">\(img("a"))\(img("b"))</seq><seq begin="0">\(img("c"))\(img("d"))</seq>
            </priorityClass></excl>
            \(img("end"))
            """
        var run = try Run(smil(body))
        run.run(until: 14.5)
        #expect(
            run.timed() == [
                "begin@0", "1@1", "2@2", "5@3", "1@4", "6@5", "7@6", "8@7", "-@8", "6@10", "4@11", "c@12", "d@13",
                "end@14",
            ])
    }

    @Test func aPausedPeerResumesWhereItWasAndADeferredOneWaits() throws {
        let body = """
            <excl><priorityClass peers="pause">
              <video src="clip.mp4" begin="0s"/>\(img("ad", "begin=\"2s\" dur=\"3s\""))
            </priorityClass></excl>
            <excl><priorityClass peers="defer">
              \(img("x", "begin=\"0s\" dur=\"2s\""))\(img("y", "begin=\"1s\" dur=\"1s\""))
            </priorityClass></excl>
            <excl><priorityClass peers="never">
              \(img("p", "begin=\"0s\" dur=\"2s\""))\(img("q", "begin=\"1s\" dur=\"1s\""))
            </priorityClass></excl>
            """
        var run = try Run(smil(body), lengths: ["clip.mp4": 4])
        run.run(until: 12)
        #expect(run.timed() == ["clip@0", "ad@2", "clip@5", "x@7", "y@9", "p@10", "clip@12"])
        let resumed = run.effects.compactMap { e -> Shown? in
            if case .show(_, let s) = e.effect, e.time == 5 { return s }
            return nil
        }
        #expect(resumed.first?.position == 2)
    }

    @Test func aHigherClassPausesOrStopsALowerOneAndALowerOneDefersOrIsRefused() throws {
        let body = """
            <excl>
              <priorityClass higher="stop" lower="never">\(img("alarm", "begin=\"1s;5s\" dur=\"1s\""))</priorityClass>
              <priorityClass higher="pause" lower="defer">
                <seq begin="0">\(img("a", "dur=\"2s\""))\(img("b", "dur=\"2s\""))</seq>
              </priorityClass>
              <priorityClass higher="pause">\(img("late", "begin=\"4.5s\" dur=\"1s\""))</priorityClass>
            </excl>
            """
        var run = try Run(smil(body))
        run.run(until: 7.5)
        // At 1 s the alarm pauses the seq, which resumes at 2 s with 1 s of a left. At 4.5 s
        // the lowest class waits for b to end (at 5 s); it begins then, and the alarm, come
        // again, pauses it at once; it shows from 6 s to 7 s, when the body begins again.
        #expect(run.timed() == ["a@0", "alarm@1", "a@2", "b@3", "alarm@5", "late@6", "a@7"])
    }

    @Test func anActivateEventBeginsWhatWaitsForItAfterItsOffset() throws {
        let body = """
            <par>
              \(img("standby", "xml:id=\"standby\" dur=\"indefinite\""))
              <seq begin="standby.activateEvent+2s">\(img("1"))\(img("2"))</seq>
            </par>
            """
        let doc = try SMILDocument.read(Array(smil(body).utf8), file: "t.smil").get()
        let standby = try #require(doc.nodes.firstIndex { $0.id == "standby" })
        var run = try Run(smil(body))
        run.run(until: 6, inputs: [(1, { .activate(node: standby, $0) })])
        #expect(run.timed() == ["standby@0", "1@3", "2@4", "standby@5"])
    }

    /// The forms of garlic-player's `excl/peers/2_pause.smil` and `3_defer.smil`.
    @Test func waitingPeersTakeTheirTurnLatestFirstAndAnEndPassedMeanwhileEndsThem() throws {
        func excl(_ peers: String, _ timing: String) -> String {
            let items = ["1", "2", "3"].map { img($0, "begin=\"0s\" \(timing)") }.joined()
            return "<excl><priorityClass peers=\"\(peers)\">\(items)</priorityClass></excl>"
        }
        let body = [
            excl("pause", "dur=\"1s\""), excl("pause", "end=\"1s\""), excl("defer", "dur=\"1s\""),
            excl("defer", "end=\"1s\""),
        ].joined()
        var run = try Run(smil(body))
        run.run(until: 8.5)
        #expect(run.timed() == ["3@0", "2@1", "1@2", "3@3", "1@4", "3@5", "2@6", "1@7", "3@8"])
    }
}
