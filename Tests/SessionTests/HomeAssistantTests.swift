import PropertyBased
import Session
import Testing
import Wire

@Suite("Home Assistant's ids and states")
struct HomeAssistantTests {
    /// Characters a device name may hold: what ids allow, and what they do not.
    static let pool: [Character] = ["a", "Z", "7", "_", "-", ".", "/", " ", "é", "ß", "😀", ":", "+"]
    static let names = Gen.int(in: 0...(pool.count - 1)).array(of: 0...24).map { String($0.map { pool[$0] }) }

    @Test func everyNameGivesAnIdHomeAssistantTakesTheSameOnEveryStart() async {
        await propertyCheck(count: 500, input: Self.names) { name in
            let id = HomeAssistantDiscovery.id(name)
            #expect(!id.isEmpty)
            #expect(id.unicodeScalars.allSatisfy { "a"..."z" ~= $0 || "A"..."Z" ~= $0 || "0"..."9" ~= $0 || $0 == "_" })
            #expect(id == HomeAssistantDiscovery.id(name))
        }
    }

    @Test func namesThatMapAlikeStayApart() async {
        await propertyCheck(count: 500, input: Self.names, Self.names) { a, b in
            if a != b, a.replacingOccurrences(of: "-", with: "_") != b.replacingOccurrences(of: "-", with: "_") {
                #expect(HomeAssistantDiscovery.id(a) != HomeAssistantDiscovery.id(b), "\(a) and \(b)")
            }
        }
        #expect(HomeAssistantDiscovery.id("lobby.1") != HomeAssistantDiscovery.id("lobby_1"))
        #expect(HomeAssistantDiscovery.id("lobby.1").hasPrefix("lobby_1_"))
    }

    @Test func idsOfNamesThatWereAlwaysValidAreKept() {
        #expect(HomeAssistantDiscovery.id("kiosk-7") == "kiosk_7")
        #expect(HomeAssistantDiscovery.id("Lobby_2") == "Lobby_2")
    }

    @Test func aLongStateIsCutToWhatHomeAssistantKeeps() async {
        await propertyCheck(count: 300, input: Self.names.array(of: 0...30)) { parts in
            let text = parts.joined()
            let short = HomeAssistantDiscovery.shortened(text)
            #expect(short.unicodeScalars.count <= 255)
            if text.unicodeScalars.count <= 255 {
                #expect(short == text)
            } else {
                #expect(short.hasSuffix("…"))
                #expect(text.unicodeScalars.starts(with: short.unicodeScalars.dropLast()))
            }
        }
    }

    @Test func thePlayingSensorShowsTheTitleAndTheStateKeepsThePath() {
        let path = "/srv/" + String(repeating: "d/", count: 200) + "promo.mkv"
        let state = MQTTState(
            device: .portrait, interface: .portrait, locked: false, scene: "inline", playing: path, sensor: "ok",
            clip: nil, refused: String(repeating: "x", count: 400), refusedAt: "2026-11-26T09:00:00Z")
        #expect(state.title == "promo.mkv")
        #expect(state.playing == path)
        #expect(state.refused?.unicodeScalars.count == 255)
        #expect(
            MQTTState(
                device: .portrait, interface: .portrait, locked: false, scene: "inline",
                playing: "https://example.com/videos/", sensor: "ok", clip: nil
            ).title == "videos")
    }

    @Test func aSMILIndexIsItsNameAndWhatEachZoneShowsAndItsFirstProblem() {
        var state = MQTTState(
            device: .portrait, interface: .portrait, locked: false, scene: "inline", playing: nil, sensor: "ok",
            clip: nil)
        var p = PresentationStatus(index: "http://cms/screens/lobby.smil")
        p.zones = [
            ZonePlaying(region: "main", item: "http://cms/a.mp4", id: "a"),
            ZonePlaying(region: "side", item: nil, id: nil),
        ]
        p.refused = ["lobby.smil:20:7: warning: 'blink' is not played"]
        state.describe(p)
        #expect(state.smil == "lobby.smil: main a.mp4, side -")
        #expect(state.smilProblem == "lobby.smil:20:7: warning: 'blink' is not played")
        p.problem = "http://cms/screens/lobby.smil: not downloaded yet"
        state.describe(p)
        #expect(state.smilProblem == p.problem)
    }
}
