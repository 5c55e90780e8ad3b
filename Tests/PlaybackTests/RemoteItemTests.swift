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
