import MPV
import Testing

@Suite("libmpv handle")
struct MPVHandleTests {
    @Test func createsAHeadlessPlayerAndReadsProperties() throws {
        let mpv = try MPVHandle(options: [("vo", "null"), ("ao", "null"), ("idle", "yes")])
        #expect(mpv.string("mpv-version")?.hasPrefix("mpv ") == true)
        #expect(mpv.string("vo") == "null")
        #expect(mpv.string("no-such-property") == nil)
    }

    @Test func aBadOptionIsATypedErrorNamingTheCall() {
        #expect {
            _ = try MPVHandle(options: [("no-such-option", "1")])
        } throws: { error in
            guard let e = error as? MPVError else { return false }
            return e.call == "mpv_set_option_string(no-such-option=1)" && e.message == "option not found"
        }
    }

    @Test func clientAPIVersion() {
        #expect(mpvClientAPIVersion.hasPrefix("2."))
    }
}
