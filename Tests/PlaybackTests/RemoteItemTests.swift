import Playback
import Testing

/// Which remote items are files to cache and which are streams, by their URL and `live`.
struct RemoteItemTests {
    @Test(
        arguments: [
            ("https://cdn.example.com/loop/clip.mp4", nil, true),
            ("http://10.0.0.5:8080/signs/welcome.PNG?v=3", nil, true),
            ("https://cdn.example.com/live/index.m3u8", nil, false),
            ("https://cdn.example.com/live/manifest.mpd", nil, false),
            ("http://camera.local/stream", nil, false),
            ("http://camera.local/", nil, false),
            ("http://camera.local", nil, false),
            ("https://cms.example.com/content?id=5", false, true),
            ("https://cdn.example.com/loop/clip.mp4", true, false),
            ("rtsp://camera.local/stream1", nil, false),
            ("rtsp://camera.local/stream1.mp4", false, false),
            ("/srv/upright/clip.mp4", nil, false),
            ("file:///srv/upright/clip.mp4", nil, false),
        ] as [(String, Bool?, Bool)])
    func cachedOrStreamed(_ url: String, _ live: Bool?, _ cached: Bool) {
        let options = live.map { ItemOptions(live: $0) }
        #expect(RemoteItem.isCached(url, options: options) == cached)
        let remote = url.contains("://") && !url.hasPrefix("file://")
        #expect(RemoteItem.isLive(url, options: options) == (remote && !cached))
    }
}

extension RemoteItemTests {
    @Test func aRemoteListsItemsAreAbsolute() {
        let text = "# comment\n  clip.mp4  \n\n/top/a.png\nrtsp://cam/1\r\nhttps://other.example/b.mp4\n"
        #expect(
            RemoteItem.items(ofList: text, base: "https://cms.example.com/screens/loop.m3u?v=2") == [
                "https://cms.example.com/screens/clip.mp4", "https://cms.example.com/top/a.png", "rtsp://cam/1",
                "https://other.example/b.mp4",
            ])
        #expect(RemoteItem.isList("https://cms.example.com/screens/loop.m3u?v=2"))
        #expect(RemoteItem.isList("http://10.0.0.5/list.TXT"))
        #expect(!RemoteItem.isList("https://cdn.example.com/live/index.m3u8"))
        #expect(!RemoteItem.isList("/srv/loop.m3u"))
        #expect(RemoteItem.isCached("https://cms.example.com/screens/loop.m3u"))
    }
}

/// A remote list's files take the list's settings, and a file's own URL's settings win.
@Suite("Remote lists' settings")
struct RemoteListSettingsTests {
    @Test func aListsFilesTakeItsSettingsAndTheirOwnWin() {
        let list = "https://cms.example.com/loop.m3u"
        var s = PlayerSettings()
        s.playlist = [list]
        s.itemOptions = [
            list: ItemOptions(duration: 3, mute: true),
            "https://cms.example.com/b.png": ItemOptions(duration: 7),
        ]
        var d = Drive(s)
        d.mpv.disk = ["/cache/a.png": "a", "/cache/b.png": "b"]
        d.scanned = PlaylistScan(entries: [
            .init(
                entry: list,
                items: [
                    .init("/cache/a.png", origin: "https://cms.example.com/a.png"),
                    .init("/cache/b.png", origin: "https://cms.example.com/b.png"),
                ],
                description: "\(list): a list of 2 items, 2 ready")
        ])
        d.send(.start)
        d.advance(1)
        let loads = d.commands.compactMap { c -> (String, [String])? in
            if case .load(let path, _, let options) = c { (path, options) } else { nil }
        }
        let a = loads.first { $0.0 == "/cache/a.png" }?.1 ?? []
        let b = loads.first { $0.0 == "/cache/b.png" }?.1 ?? []
        #expect(a.contains("image-display-duration=3.0") && a.contains("mute=yes"), "\(loads)")
        #expect(b.contains("image-display-duration=7.0") && !b.contains("mute=yes"), "\(loads)")
    }
}

/// A remote list's lines are from outside: only files and streams over the network play; every
/// other scheme is refused with its reason, said once, and never reaches mpv; what the
/// configuration does not name itself opens nothing further.
@Suite("Remote lists: what a line may name")
struct RemoteListOriginTests {
    static let hostile = [
        "file:///etc/hostname", "av://lavfi:testsrc=d=2,metadata=mode=print:file=/tmp/X/pwned",
        "av://v4l2:/dev/video0", "edl://file:///etc/os-release", "memory://hello", "lavf://concat:/etc/hostname",
        "unix:///run/x.sock", "tcp://10.0.0.1:80", "FILE:///etc/passwd",
    ]

    @Test func onlyNetworkFilesAndStreamsPassAndEveryOtherSchemeIsRefusedWithItsReason() {
        for line in Self.hostile {
            let why = RemoteItem.refusal(of: line, allowed: RemoteItem.streamSchemes)
            #expect(
                why?.hasPrefix("refused: ") == true && why?.contains("is not allowed in a remote list") == true,
                "\(line)")
        }
        #expect(
            RemoteItem.refusal(of: "file:///etc/hostname", allowed: RemoteItem.streamSchemes)?.contains("file://")
                == true)
        for line in ["https://cdn/a.mp4", "HTTP://cdn/b.png", "rtsp://cam/1", "srt://enc:9000", "rtmps://x/live"] {
            #expect(RemoteItem.refusal(of: line, allowed: RemoteItem.streamSchemes) == nil, "\(line)")
        }
        #expect(RemoteItem.refusal(of: "udp://239.0.0.1:1234", allowed: RemoteItem.streamSchemes) != nil)
        #expect(RemoteItem.refusal(of: "udp://239.0.0.1:1234", allowed: RemoteItem.streamSchemes + ["udp"]) == nil)
    }

    @Test func aRefusedLineIsSaidOnceAndNeverLoadedAndOutsideItemsOpenNothingFurther() {
        let list = "https://cms.example.com/loop.m3u"
        var s = PlayerSettings()
        s.playlist = [list]
        var d = Drive(s)
        d.mpv.disk = ["/cache/a.mp4": "a"]
        d.scanned = PlaylistScan(entries: [
            .init(
                entry: list, items: [.init("/cache/a.mp4", origin: "https://cms.example.com/a.mp4")],
                description: "\(list): a list of 1 items, 1 ready, 1 refused",
                refused: [.init(line: "file:///etc/hostname", reason: "refused: file:// is not allowed")])
        ])
        d.send(.start)
        d.advance(2)
        // Looked at again (a folder changed): the same refusal is not said again.
        d.send(.foldersChanged)
        d.advance(2)
        let failures = d.events.compactMap { e -> String? in if case .fileFailed(let l, _) = e { l } else { nil } }
        #expect(failures == ["file:///etc/hostname"], "\(d.events)")
        let loads = d.commands.compactMap { c -> (String, [String])? in
            if case .load(let path, _, let options) = c { (path, options) } else { nil }
        }
        #expect(loads.allSatisfy { !$0.0.hasPrefix("file://") })
        #expect(loads.first { $0.0 == "/cache/a.mp4" }?.1.contains("access-references=no") == true, "\(loads)")
    }
}
