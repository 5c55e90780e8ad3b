import Testing

@testable import SMIL

@Suite struct AddressTests {
    @Test(arguments: [
        ("../../images/0001.jpg", "http://cms.example/smil/seq/1_simple.smil", "http://cms.example/images/0001.jpg"),
        ("a b.jpg", "https://cms.example/screens/lobby.smil?v=2", "https://cms.example/screens/a b.jpg"),
        ("/media/x.mp4", "https://cms.example:8443/screens/lobby.smil", "https://cms.example:8443/media/x.mp4"),
        // A path in an index from the network is on its server, not on the player's disk.
        ("/etc/passwd", "https://cms.example/a/index.smil", "https://cms.example/etc/passwd"),
        ("//cdn.example/x.mp4", "https://cms.example/lobby.smil", "https://cdn.example/x.mp4"),
        ("../../../../x.jpg", "http://cms.example/a/i.smil", "http://cms.example/x.jpg"),
        ("HTTP://other.example/./v/../w.mp4", "http://cms.example/i.smil", "HTTP://other.example/w.mp4"),
        ("rtsp://cam.example/live", "http://cms.example/i.smil", "rtsp://cam.example/live"),
        ("media/a.jpg", "/srv/signage/index.smil", "/srv/signage/media/a.jpg"),
        ("../shared/a.jpg", "/srv/signage/index.smil", "/srv/shared/a.jpg"),
        ("file:///etc/hosts", "/srv/signage/index.smil", "file:///etc/hosts"),
        ("x.jpg", "file:///srv/signage/index.smil", "file:///srv/signage/x.jpg"),
    ])
    func addressesResolve(src: String, base: String, resolved: String) {
        #expect((try? MediaAddress.resolve(src, against: base).get()) == resolved)
    }

    @Test(arguments: [
        ("file:///etc/resolv.conf", "file://"), ("av://v4l2:/dev/video0", "av://"),
        ("edl://a.mp4,0,1", "edl://"), ("data:,hello", "data://"),
    ])
    func anIndexFromTheNetworkNamesNetworkURLsOnly(src: String, named: String) {
        let result = MediaAddress.resolve(src, against: "https://cms.example/index.smil")
        guard case .failure(let refusal) = result else {
            Issue.record("\(src) was let through")
            return
        }
        #expect(refusal.description.hasSuffix("may name network URLs only, not \(named)"))
        #expect(
            (try? MediaAddress.resolve(src, against: "https://cms.example/i.smil", allowed: ["data"]).get())
                == (src == "data:,hello" ? src : nil))
    }

    @Test func whatComesNextIsFoundAheadInOrder() throws {
        let body = """
            <seq repeatCount="2">\(img("a"))<video src="v.mp4"/>\(img("b", #"dur="100s""#))</seq>
            """
        let run = try Run(smil(body))
        let next = run.p.upcoming(within: 30, assumedLength: 5).map(\.src)
        #expect(next == ["v.mp4", "b.jpg"])
        #expect(run.p.shown[.root]?.media.src == "a.jpg")
    }

    @Test func aDataURLsTextIsItsOwn() {
        #expect(
            MediaAddress.dataText("data:,Willemijn's%2011th%20Birthday%20Party", limit: 100)
                == "Willemijn's 11th Birthday Party")
        #expect(MediaAddress.dataText("data:text/plain;charset=utf-8;base64,T1BFTiA5LTE3", limit: 100) == "OPEN 9-17")
        #expect(MediaAddress.dataText("data:,abcdef", limit: 3) == "abc")
        #expect(MediaAddress.dataText("data:image/png;base64,iVBORw0K", limit: 100) == nil, "not text")
        #expect(MediaAddress.dataText("data:no comma", limit: 100) == nil)
        #expect(MediaAddress.dataText("http://cms/a.txt", limit: 100) == nil)
    }
}
