import Foundation
import Testing
import Web

/// The configuration as the page shows it: no password, no URL credentials; a save puts back
/// what was masked, and a line changed around its mask must have its secret typed again.
@Suite("The configuration's secrets on the page")
struct ConfigMaskTests {
    static let file = """
        [mqtt]
        url = "mqtts://fleet:s3cret@broker.example:8883"
        password = "hunter2"
        [player]
        playlist = ["https://cdn.example/a.mp4?token=abc", "/media"]
        """

    @Test func noSecretIsShown() {
        let shown = ConfigurationFile.masked(Self.file)
        #expect(!shown.contains("s3cret") && !shown.contains("hunter2") && !shown.contains("abc"), "\(shown)")
        #expect(shown.contains(#"password = "***""#) && shown.contains("fleet:***@broker.example"), "\(shown)")
    }

    @Test func aSaveOfTheShownTextKeepsTheSecrets() throws {
        var shown = ConfigurationFile.masked(Self.file)
        shown = shown.replacingOccurrences(of: #""/media""#, with: #""/media", "/more""#)
        let saved = try ConfigurationFile.unmasked(shown, current: Self.file).get()
        #expect(saved == Self.file.replacingOccurrences(of: #""/media""#, with: #""/media", "/more""#))
    }

    @Test func aLineChangedAroundItsMaskIsRefusedWithItsNumber() {
        let shown = ConfigurationFile.masked(Self.file).replacingOccurrences(
            of: "broker.example", with: "other.example")
        guard case .failure(let changed) = ConfigurationFile.unmasked(shown, current: Self.file) else {
            Issue.record("a changed line with a mask was taken")
            return
        }
        #expect(changed.lines == [2])
        // A new secret typed in full is taken as it is.
        let typed = shown.replacingOccurrences(of: "fleet:***@", with: "fleet:new@")
        #expect((try? ConfigurationFile.unmasked(typed, current: Self.file).get())?.contains("fleet:new@other") == true)
    }
}
