import Display
import Foundation
import OrientationCore
import Settings
import Synchronization
import Testing

/// The controller's rules for outputs changed behind its back, against a backend whose state the
/// test holds (the rule is the same for sway, wlroots and X11; the sway one is also tested against
/// a real headless sway in the CLI tests).
@Suite("Display controller: foreign changes")
struct DisplayControllerTests {
    /// An output in memory: what the compositor shows, changed by the controller or by "someone else".
    final class MemoryBackend: DisplayBackend {
        let kind: DisplayBackendKind
        var endpoint: String { "memory" }
        let shown = Mutex<OutputTransform?>(.normal)
        init(kind: DisplayBackendKind = .wlroots) { self.kind = kind }
        func outputs() async throws(DisplayError) -> [OutputState] {
            [OutputState(name: "DSI-1", transform: shown.withLock { $0 }, showsUpright: true)]
        }
        /// How many times the controller set a transform.
        let sets = Mutex(0)
        func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
            shown.withLock { $0 = transform }
            sets.withLock { $0 += 1 }
        }
        /// The touch devices the compositor lists, and how often the controller mapped them.
        let touch = Mutex<[String]>([])
        let maps = Mutex(0)
        func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
            maps.withLock { $0 += 1 }
            return touch.withLock { $0 }
        }
        func touchDevices() async -> [String] { touch.withLock { $0 } }
        func turnBySomeoneElse(_ t: OutputTransform) { shown.withLock { $0 = t } }
        var transform: OutputTransform? { shown.withLock { $0 } }
    }

    static func controller(_ backend: MemoryBackend, kiosk: Bool = true) -> DisplayController {
        var settings = DisplaySettings()
        settings.kiosk = kiosk
        let state = NSTemporaryDirectory() + "upright-dc-\(UUID().uuidString.prefix(8))"
        return DisplayController(settings: settings, stateDirectory: state, backend: backend, reason: "test")
    }

    @Test(arguments: [DisplayBackendKind.sway, .wlroots, .x11])
    func aForeignTurnIsUndoneInKioskMode(kind: DisplayBackendKind) async {
        let backend = MemoryBackend(kind: kind)
        let display = Self.controller(backend)
        _ = await display.start()
        #expect(await display.apply(.landscapeLeft) == nil)
        let mine = backend.transform
        backend.turnBySomeoneElse(OutputTransform(clockwise: 180))
        let (_, note) = await display.reassert()
        #expect(backend.transform == mine)
        #expect(
            note?.contains("DSI-1 was turned to 180° clockwise by someone else; turned back to") == true,
            "\(note ?? "")")
        #expect(await display.status.transform == mine)
        // Nothing changed since: nothing to do, nothing said.
        #expect(await display.reassert().1 == nil)
    }

    /// A touchscreen that appears after the last turn (plugged in, or found late) is mapped at the
    /// next look, once: the compositor turns its touches with the output only once it is mapped.
    @Test func aTouchscreenThatAppearsIsMappedAtTheNextLook() async {
        let backend = MemoryBackend(kind: .sway)
        let display = Self.controller(backend)
        _ = await display.start()
        #expect(await display.apply(.landscapeLeft) == nil)
        let before = backend.maps.withLock { $0 }
        #expect(await display.reassert().1 == nil, "no touch device: nothing to map")
        backend.touch.withLock { $0 = ["1046:911:Goodix_Capacitive_TouchScreen"] }
        let (_, note) = await display.reassert()
        #expect(note == "display: touch device 1046:911:Goodix_Capacitive_TouchScreen found; mapped to DSI-1")
        #expect(backend.maps.withLock { $0 } == before + 1)
        #expect(await display.reassert().1 == nil, "mapped once")
        #expect(backend.maps.withLock { $0 } == before + 1)
    }

    /// An output that shows the wanted transform already is not set again (sway lays every window
    /// out again for it, and answers no client meanwhile: the launch's first frame waited for it).
    @Test func anOutputShowingTheWantedTransformIsNotSetAgain() async {
        let backend = MemoryBackend()
        let natural = OutputTransform(interface: .landscapeLeft, natural: DisplaySettings().natural)
        backend.shown.withLock { $0 = natural }  // the output shows landscape-left already
        let display = Self.controller(backend)
        _ = await display.start()
        #expect(await display.apply(.landscapeLeft) == nil)
        #expect(backend.sets.withLock { $0 } == 0)
        #expect(await display.apply(.portrait) == nil)
        #expect(await display.apply(.portrait) == nil)
        #expect(backend.sets.withLock { $0 } == 1)
        #expect(await display.apply(.landscapeLeft) == nil)
        #expect(backend.transform == natural && backend.sets.withLock { $0 } == 2)
    }

    @Test func onASharedDesktopAForeignTurnIsFollowedNotFought() async {
        let backend = MemoryBackend()
        let display = Self.controller(backend, kiosk: false)
        _ = await display.start()
        backend.turnBySomeoneElse(OutputTransform(clockwise: 90))
        #expect(await display.reassert().1 == nil)
        #expect(backend.transform == OutputTransform(clockwise: 90))
        #expect(await display.status.transform == OutputTransform(clockwise: 90))  // the status tells the truth
    }

    @Test func theOriginalIsPutBackAtExitWhoeverTurnedItLast() async {
        let backend = MemoryBackend()
        let display = Self.controller(backend)
        _ = await display.start()  // never turned by Upright
        backend.turnBySomeoneElse(OutputTransform(clockwise: 180))
        await display.restore()
        #expect(backend.transform == .normal)
    }

    @Test func aBackendThatReportsNoTransformIsNotFought() async {
        let backend = MemoryBackend()
        let display = Self.controller(backend)
        _ = await display.start()
        #expect(await display.apply(.landscapeLeft) == nil)
        backend.turnBySomeoneElse(OutputTransform(clockwise: 180))
        backend.shown.withLock { $0 = nil }  // as wlr-randr shows sway's headless output
        #expect(await display.reassert().1 == nil)
    }

    @Test func aTurnIsReadBack() async {
        /// A compositor that takes the command and shows something else (sway's disabled headless output).
        final class Stubborn: DisplayBackend {
            var kind: DisplayBackendKind { .sway }
            var endpoint: String { "memory" }
            func outputs() async throws(DisplayError) -> [OutputState] {
                [OutputState(name: "HEADLESS-1", active: false, transform: .normal, showsUpright: true)]
            }
            func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {}
            func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
                []
            }
        }
        let display = DisplayController(
            settings: DisplaySettings(), stateDirectory: NSTemporaryDirectory() + "upright-dc-stubborn",
            backend: Stubborn(), reason: "test")
        _ = await display.start()
        let failure = await display.apply(.landscapeLeft)
        #expect(
            failure?.description.contains("it shows 0° clockwise (the output is disabled)") == true,
            "\(String(describing: failure))")
        #expect(await display.status.transform == .normal)
    }
}
