import Testing

@testable import SMIL

@Suite struct IdentityTests {
    @Test func theUserAgentIsTheADAPIFormAndANameCannotBreakIt() {
        let id = PlayerIdentity(uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", name: "lobby-1", version: "0.9.0")
        #expect(
            id.userAgent
                == "ADAPI/2.0 (UUID:0f8fad5b-d9cb-469f-a165-70867728950e; NAME:lobby-1) Upright-Linux/0.9.0 (MODEL:Upright)"
        )
        let hostile = PlayerIdentity(uuid: id.uuid, name: "a; b)\r\nX-Evil: 1 é", version: "")
        #expect(
            hostile.userAgent == "ADAPI/2.0 (UUID:\(id.uuid); NAME:a--b---X-Evil:-1--) Upright-Linux/- (MODEL:Upright)")
        #expect(PlayerIdentity.token(String(repeating: "x", count: 100), limit: 64).count == 64)
    }
}
