import Config
import Foundation
import Testing

/// What the operator's page may change in the configuration (`[web] edit = "safe"`, the default).
@Suite("The page's editor")
struct PageEditTests {
    static let current = """
        [player]
        playlist = ["/srv/media", "https://cms.example/a.mp4"]
        [player.mpv]
        hwdec = "auto"
        [proof_of_play]
        file = "/var/lib/upright/plays.jsonl"
        """

    func refusals(_ posted: String) -> [String] {
        PageEdit.refusals(posted: posted, current: Self.current, file: "u.toml", uploads: "/srv/uploads").map(
            \.description)
    }

    @Test func theSameFileOrAPlaylistInItsFoldersIsTaken() {
        #expect(refusals(Self.current).isEmpty)
        let more = Self.current.replacingOccurrences(
            of: #""/srv/media","#, with: #""/srv/media", "/srv/media/x.mp4", "/srv/uploads/y.mp4", "rtsp://cam/1","#)
        #expect(refusals(more).isEmpty, "\(refusals(more))")
        let volume = Self.current.replacingOccurrences(of: #"hwdec = "auto""#, with: "hwdec = \"no\"\nvolume = 50")
        #expect(refusals(volume).isEmpty)
    }

    @Test(arguments: [
        (#"playlist = ["/srv/media", "av://lavfi:testsrc"]"#, "not a media file or stream"),
        (#"playlist = ["/srv/media", "edl://file:///etc/os-release"]"#, "not a media file or stream"),
        (#"playlist = ["/srv/media", "file:///etc/hostname"]"#, "not a media file or stream"),
        (#"playlist = ["/etc/hostname"]"#, "outside the folders Upright uses"),
        (#"playlist = ["/srv/media/../../etc/hostname"]"#, "outside the folders Upright uses"),
        (#"playlist = ["/home/admin/private.mp4"]"#, "outside the folders Upright uses"),
    ])
    func entriesThatAreNoMediaOrOutsideItsFoldersAreRefused(line: String, why: String) {
        let posted = Self.current.replacingOccurrences(
            of: #"playlist = ["/srv/media", "https://cms.example/a.mp4"]"#, with: line)
        let found = refusals(posted)
        #expect(found.count == 1 && found[0].contains(why) && found[0].contains("u.toml:2:"), "\(found)")
    }

    /// A line added after `after` (a line of the current file), or a table of its own at the end.
    @Test(arguments: [
        ("hwdec", "script = \"/tmp/x.lua\""), ("hwdec", "input-commands = \"run sh\""),
        ("hwdec", "log-file = \"/tmp/log\""), ("hwdec", "vo = \"image\""),
        ("", "[metrics]\nlisten = \"0.0.0.0:9464\""), ("", "[web]\nedit = \"all\""),
        ("", "[sensor]\nuri = \"ip:10.0.0.9\""), ("playlist", "remote_schemes = [\"file\"]"),
        ("playlist", "splash = \"/etc/shadow\""),
    ])
    func keysThatRunCodeOrNamePathsAreRefused(after: String, added: String) {
        let posted =
            after.isEmpty
            ? Self.current + "\n" + added
            : Self.current.split(separator: "\n").map { $0.hasPrefix(after) ? $0 + "\n" + added : String($0) }
                .joined(separator: "\n")
        let found = refusals(posted)
        #expect(found.count == 1 && found[0].contains("from the operator's page"), "\(added): \(found)")
    }

    @Test func removingAGuardedKeyIsRefusedToo() {
        let posted = Self.current.replacingOccurrences(of: "file = \"/var/lib/upright/plays.jsonl\"", with: "")
        #expect(refusals(posted).first?.contains("may not be removed") == true, "\(refusals(posted))")
    }
}
