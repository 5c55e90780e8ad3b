import Display
import OrientationCore
import Testing

@Suite("Output transforms: one clockwise convention, converted per backend")
struct TransformTests {
    @Test(arguments: [0, 90, 180, 270])
    func everyBackendsWordsRoundTrip(degrees: Int) {
        let t = OutputTransform(clockwise: degrees)
        #expect(OutputTransform(swayName: t.swayName) == t)
        #expect(OutputTransform(wlrName: t.wlrName) == t)
        #expect(OutputTransform(xrandrName: t.xrandrName) == t)
    }

    @Test func wlrootsAndXSayCounterClockwise() {
        // sway's transform is clockwise; the Wayland protocol's (wlr-randr) counter-clockwise;
        // xrandr's `left` is a counter-clockwise quarter turn.
        let quarter = OutputTransform(clockwise: 90)
        #expect(quarter.swayName == "90")
        #expect(quarter.wlrName == "270")
        #expect(quarter.xrandrName == "right")
        #expect(OutputTransform(clockwise: 270).xrandrName == "left")
        #expect(OutputTransform(swayName: "flipped-90") == nil)
    }

    @Test(arguments: [
        // interface, natural, clockwise output transform
        (InterfaceOrientation.portrait, InterfaceOrientation.portrait, 0), (.landscapeRight, .portrait, 90),
        (.portraitUpsideDown, .portrait, 180), (.landscapeLeft, .portrait, 270),
        // A landscape panel mounted as a portrait device: at transform 0 it shows landscape-right.
        (.portrait, .landscapeRight, 270), (.landscapeRight, .landscapeRight, 0),
        (.landscapeLeft, .landscapeRight, 180),
        (.portrait, .landscapeLeft, 90),
    ])
    func theBaseTransformComposesWithTheRequest(interface: InterfaceOrientation, natural: InterfaceOrientation, cw: Int)
    {
        let t = OutputTransform(interface: interface, natural: natural)
        #expect(t.clockwise == cw)
        #expect(t.interface(natural: natural) == interface)
    }

    /// The touch matrix maps where the finger is on the panel to where that point is on the turned screen.
    @Test(arguments: [0, 90, 180, 270])
    func touchFollowsTheTurn(degrees: Int) {
        let m = OutputTransform(clockwise: degrees).touchMatrix
        func apply(_ x: Double, _ y: Double) -> (Double, Double) {
            (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5])
        }
        // The screen's top-left corner lies on the panel where a clockwise turn puts it.
        let panelCornerOfScreenTopLeft: (Double, Double) =
            switch degrees {
            case 90: (1, 0)
            case 180: (1, 1)
            case 270: (0, 1)
            default: (0, 0)
            }
        let mapped = apply(panelCornerOfScreenTopLeft.0, panelCornerOfScreenTopLeft.1)
        #expect(mapped.0 == 0 && mapped.1 == 0)
        #expect(m[6...] == [0, 0, 1])
    }
}

@Suite("Backend listings")
struct ListingTests {
    @Test func wlrRandrListingIsRead() {
        let text = """
            eDP-1 "Sharp Corporation 0x1234 (eDP-1)"
              Make: Sharp Corporation
              Model: 0x1234
              Physical size: 150x250 mm
              Enabled: yes
              Modes:
                800x1280 px, 60.000000 Hz (preferred, current)
                640x480 px, 60.000000 Hz
              Position: 0,0
              Transform: 90
              Scale: 1.000000
            HEADLESS-1 "Headless output 1"
              Enabled: no
              Modes:
                0x0 px
            """
        let outputs = WlrootsBackend.parseListing(text)
        #expect(outputs.map(\.name) == ["eDP-1", "HEADLESS-1"])
        #expect(outputs[0].active && outputs[0].showsUpright)
        #expect(outputs[0].transform == OutputTransform(clockwise: 270))  // wlr-randr's 90 is counter-clockwise
        #expect(outputs[0].mode == .init(width: 800, height: 1280))
        #expect(!outputs[1].active && outputs[1].transform == nil && outputs[1].mode == nil)
        #expect(outputs[0].identity == "Sharp Corporation 0x1234 Unknown", "wlr-randr 0.3's Make and Model")
        #expect(outputs[1].identity == nil, "an older wlr-randr names no monitor")
    }

    @Test func xrandrSaysWhichRotationsItOffers() {
        let text = """
            Screen 0: minimum 8 x 8, current 1280 x 800, maximum 32767 x 32767
            DSI-1 connected primary 1280x800+0+0 (0x47) left (normal left inverted right x axis y axis) 150mm x 250mm
            \tIdentifier: 0x42
            HDMI-1 disconnected (normal left inverted right x axis y axis)
            screen connected 800x1280+0+0 (0x3a) normal (normal) 0mm x 0mm
            """
        let outputs = X11Backend.parseListing(text)
        #expect(outputs.map(\.name) == ["DSI-1", "screen"])
        #expect(outputs[0].transform == OutputTransform(clockwise: 270) && outputs[0].canRotate)
        #expect(outputs[0].mode == .init(width: 800, height: 1280))  // the panel's own size, before the turn
        #expect(outputs[0].showsUpright)
        #expect(outputs[1].transform == .normal && !outputs[1].canRotate)  // Xvfb: normal only
    }
}
