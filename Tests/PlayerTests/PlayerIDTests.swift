import Files
import Foundation
import Testing

@Suite struct PlayerIDTests {
    @Test func theUUIDIsMadeOnceAndKeptAndAFileThatIsNoUUIDIsReplaced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("upright-id-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = PlayerID.load(in: dir + "/state")
        #expect(first.problem == nil && UUID(uuidString: first.uuid) != nil && first.uuid == first.uuid.lowercased())
        #expect(PlayerID.load(in: dir + "/state").uuid == first.uuid)
        try Data("not a uuid\n".utf8).write(to: URL(fileURLWithPath: dir + "/state/player-id"))
        let again = PlayerID.load(in: dir + "/state")
        #expect(again.uuid != first.uuid && again.problem == nil)
        #expect(PlayerID.load(in: dir + "/state").uuid == again.uuid)
    }

    @Test func aStateDirectoryThatCannotBeWrittenIsSaidAndTheRunGoesOn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("upright-id-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data().write(to: URL(fileURLWithPath: dir))  // a file where the directory should be
        let loaded = PlayerID.load(in: dir + "/state")
        #expect(UUID(uuidString: loaded.uuid) != nil)
        #expect(loaded.problem == "\(dir)/state/player-id: not a directory; the player's UUID holds for this run only")
    }
}
