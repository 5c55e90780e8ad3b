import Display
import Testing

/// mpv held to the windowing system Upright was started in: a compositor that dies must not send
/// mpv on to DRM, where it would take the screen from the compositor's next start.
@Suite("mpv's video outputs by windowing system")
struct MPVOutputsTests {
    func outputs(_ environment: [String: String], _ configured: Set<String> = []) -> [String] {
        DisplayPresence.mpvOutputs(environment: environment, configured: configured).map { "\($0.0)=\($0.1)" }
    }

    @Test func waylandOnlyUnderACompositor() {
        #expect(outputs(["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"]) == ["vo=gpu,wlshm", "gpu-context=wayland"])
    }

    @Test func sharedMemoryUnderACompositorThatRendersInSoftware() {
        #expect(outputs(["WAYLAND_DISPLAY": "wayland-1", "WLR_RENDERER": "pixman"]) == ["vo=wlshm"])
        #expect(outputs(["WAYLAND_DISPLAY": "wayland-1", "WLR_RENDERER": "gles2"]).first == "vo=gpu,wlshm")
    }

    @Test func x11OnlyUnderAnXServer() {
        #expect(outputs(["DISPLAY": ":0"]) == ["vo=gpu,xv,x11", "gpu-context=x11egl,x11"])
    }

    @Test func theConsoleAndAnOperatorsChoiceAreLeftAlone() {
        #expect(outputs([:]).isEmpty)
        #expect(outputs(["WAYLAND_DISPLAY": ""]).isEmpty)
        #expect(outputs(["WAYLAND_DISPLAY": "wayland-1"], ["vo"]).isEmpty)
        #expect(outputs(["DISPLAY": ":0"], ["gpu-context", "hwdec"]).isEmpty)
    }
}
