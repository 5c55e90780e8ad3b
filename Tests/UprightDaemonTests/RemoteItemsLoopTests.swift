import Config
import Foundation
import Logging
import Testing

@testable import UprightDaemon

/// The remote items' loop sleeps between its questions: a new playlist wakes it once, never
/// into a loop that wakes itself.
@Suite("The remote items' loop")
struct RemoteItemsLoopTests {
    @Test func newPlaylistsWakeTheLoopOnceEach() async throws {
        var settings = CacheSettings()
        settings.directory = NSTemporaryDirectory() + "remote-loop-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: settings.directory) }
        let remote = RemoteItems(settings: settings, playlist: [], options: [:], logger: Logger(label: "test"))
        let loop = Task { await remote.run() }
        defer { loop.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        for n in 0..<5 {
            await remote.setPlaylist(["/srv/loop-\(n)"])
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        // The first turn, and one for each of the five playlists (a wake may fold into one).
        let turns = await remote.turns
        #expect(turns >= 2 && turns <= 6, "the loop turned \(turns) times")
    }
}
