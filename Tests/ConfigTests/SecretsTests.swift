import Config
import Settings
import Testing

/// Secrets kept out of what Upright says, and the loopback addresses `auth = "none"` takes.
@Suite("Secrets and loopback names")
struct SecretsTests {
    @Test(arguments: [
        ("https://user:hunter2@cms.example/list.m3u?x=1", "https://user:***@cms.example/list.m3u?x=1"),
        ("https://TOKEN123@cdn.example/a.mp4", "https://***@cdn.example/a.mp4"),
        (
            "https://cdn.example/a.mp4?token=abc&size=2&X-Amz-Signature=ff&api_key=9#t",
            "https://cdn.example/a.mp4?token=***&size=2&X-Amz-Signature=***&api_key=***#t"
        ),
        ("rtsp://admin:pw@10.0.0.5:554/stream", "rtsp://admin:***@10.0.0.5:554/stream"),
        ("mqtts://u:p@broker:8883", "mqtts://u:***@broker:8883"),
        ("https://cms.example/plain.mp4", "https://cms.example/plain.mp4"),
        ("/media/local.mp4", "/media/local.mp4"),
    ])
    func aURLKeepsAllButItsSecrets(url: String, shown: String) {
        #expect(Redact.url(url) == shown)
    }

    /// In any text: a log line, a JSON reply with escaped slashes.
    @Test func everyURLInATextIsRedacted() {
        #expect(
            Redact.text("cache: https://a:b@h/x.mp4: stalled, then rtsp://c:d@cam/1 lost")
                == "cache: https://a:***@h/x.mp4: stalled, then rtsp://c:***@cam/1 lost")
        #expect(
            Redact.text(#"{"playing":"https:\/\/a:b@h\/x.mp4?token=t","ok":true}"#)
                == #"{"playing":"https:\/\/a:***@h\/x.mp4?token=***","ok":true}"#)
        #expect(Redact.text("no URL here: a:b@c") == "no URL here: a:b@c")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("LOCALHOST", true), ("localhost.", true),
        ("::1", true), ("[::1]", true), ("0:0:0:0:0:0:0:1", true), ("0::1", true),
        ("127.attacker.example", false), ("127.0.0.1.nip.io", false), ("localhost.evil.example", false),
        ("128.0.0.1", false), ("127.0.0.256", false), ("1::", false), ("::", false), ("::2", false),
        ("evil.example", false), ("", false), ("127.0.0", false),
    ])
    func onlyLoopbackAddressesAndLocalhostAreLoopback(host: String, loopback: Bool) {
        #expect(WebSettings.isLoopback(host) == loopback)
    }
}
