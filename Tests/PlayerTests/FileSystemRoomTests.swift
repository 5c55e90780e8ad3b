import Files
import Foundation
import Testing

/// The room a folder has, made or not yet made.
@Suite struct FileSystemRoomTests {
    /// A folder not made yet (a cache before its first download) has its nearest folder's room;
    /// a path that is not absolute, or that runs through a file, has none.
    @Test func aFolderNotMadeYetHasItsParentsRoom() throws {
        let dir = NSTemporaryDirectory() + "room-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let made = try #require(FileSystemRoom(at: dir))
        let notMade = try #require(FileSystemRoom(at: dir + "/cache/upright"))
        #expect(notMade.totalBytes == made.totalBytes && made.totalBytes > 0)
        #expect(notMade.freeBytes > 0 && notMade.freeBytes <= notMade.totalBytes)
        #expect(FileSystemRoom(at: "cache/upright") == nil)
        #expect(FileSystemRoom(at: "") == nil)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        #expect(FileSystemRoom(at: dir + "/file/below")?.totalBytes == made.totalBytes, "ENOTDIR: the room around it")
    }
}
