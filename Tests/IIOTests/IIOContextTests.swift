import IIO
import Testing

@Suite("libiio context")
struct IIOContextTests {
    @Test func reportsTheLibraryVersion() {
        let parts = iioLibraryVersion.split(separator: ".")
        #expect(parts.count == 2 && parts.allSatisfy { Int($0) != nil })
    }

    @Test func anUnknownBackendIsATypedErrorNamingTheCall() {
        #expect {
            _ = try IIOContext(uri: "nosuchbackend:")
        } throws: { error in
            guard let e = error as? IIOError else { return false }
            return e.call == "iio_create_context_from_uri(\"nosuchbackend:\")" && e.code > 0 && !e.message.isEmpty
                && e.description.hasPrefix("iio_create_context_from_uri(\"nosuchbackend:\") failed: ")
        }
    }

    @Test func aRefusedNetworkContextIsAnError() {
        // Nothing listens on this loopback port; libiio reports the refused connection.
        #expect(throws: IIOError.self) { _ = try IIOContext(uri: "ip:127.0.0.1:1") }
    }
}
