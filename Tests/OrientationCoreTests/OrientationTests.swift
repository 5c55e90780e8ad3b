import OrientationCore
import Testing

@Suite("Device orientation")
struct DeviceOrientationTests {
    @Test(arguments: [
        (DeviceOrientation.unknown, "unknown"), (.portrait, "portrait"),
        (.portraitUpsideDown, "portrait-upside-down"), (.landscapeLeft, "landscape-left"),
        (.landscapeRight, "landscape-right"), (.faceUp, "face-up"), (.faceDown, "face-down"),
    ])
    func names(orientation: DeviceOrientation, name: String) {
        #expect(orientation.name == name)
        #expect(DeviceOrientation(name: name) == orientation)
        #expect(orientation.description == name)
    }

    @Test(arguments: ["", "Portrait", "landscape_left", "landscap-left", "up"])
    func unknownNamesDoNotParse(name: String) {
        #expect(DeviceOrientation(name: name) == nil)
    }

    @Test func sevenValues() {
        #expect(DeviceOrientation.allCases.count == 7)
        #expect(DeviceOrientation.allNames.count == 7)
    }

    @Test(arguments: [
        (DeviceOrientation.unknown, false, false), (.portrait, true, false), (.portraitUpsideDown, true, false),
        (.landscapeLeft, true, false), (.landscapeRight, true, false), (.faceUp, false, true), (.faceDown, false, true),
    ])
    func kinds(orientation: DeviceOrientation, upright: Bool, flat: Bool) {
        #expect(orientation.isUpright == upright)
        #expect(orientation.isFlat == flat)
    }

    /// UIKit's swap: device landscape-left is interface landscape-right and vice versa.
    @Test(arguments: [
        (DeviceOrientation.portrait, InterfaceOrientation?.some(.portrait)),
        (.portraitUpsideDown, .portraitUpsideDown),
        (.landscapeLeft, .landscapeRight),
        (.landscapeRight, .landscapeLeft),
        (.faceUp, nil), (.faceDown, nil), (.unknown, nil),
    ])
    func interfaceSwap(device: DeviceOrientation, interface: InterfaceOrientation?) {
        #expect(device.interfaceOrientation == interface)
        if let interface { #expect(interface.deviceOrientation == device) }
    }
}

@Suite("Interface orientation")
struct InterfaceOrientationTests {
    @Test(arguments: [
        (InterfaceOrientation.portrait, 0, "portrait"), (.landscapeRight, 90, "landscape-right"),
        (.portraitUpsideDown, 180, "portrait-upside-down"), (.landscapeLeft, 270, "landscape-left"),
    ])
    func anglesAndNames(orientation: InterfaceOrientation, angle: Int, name: String) {
        #expect(orientation.angle == angle)
        #expect(orientation.name == name)
        #expect(InterfaceOrientation(name: name) == orientation)
        #expect(InterfaceOrientation(angle: angle) == orientation)
        #expect(InterfaceOrientation(angle: angle + 360) == orientation)
        #expect(InterfaceOrientation(angle: angle - 720) == orientation)
    }

    @Test(arguments: [1, 45, 89, -30, 135])
    func anglesOffTheQuarterTurnsAreRefused(angle: Int) {
        #expect(InterfaceOrientation(angle: angle) == nil)
    }

    /// Every pair: the clockwise turn, and the shorter turn size (0, 90 or 180).
    @Test(arguments: InterfaceOrientation.allCases, InterfaceOrientation.allCases)
    func turns(from: InterfaceOrientation, to: InterfaceOrientation) {
        let cw = from.clockwiseTurn(to: to)
        #expect((0..<360).contains(cw) && cw % 90 == 0)
        #expect(InterfaceOrientation(angle: from.angle + cw) == to)
        #expect((cw + to.clockwiseTurn(to: from)) % 360 == 0)
        let turn = from.turn(to: to)
        #expect(turn == [0: 0, 90: 90, 180: 180, 270: 90][cw])
        #expect(turn == to.turn(to: from))
        #expect((turn == 180) == (to == from.opposite))
    }

    @Test func explicitTurns() {
        #expect(InterfaceOrientation.portrait.clockwiseTurn(to: .landscapeRight) == 90)
        #expect(InterfaceOrientation.portrait.clockwiseTurn(to: .landscapeLeft) == 270)
        #expect(InterfaceOrientation.landscapeLeft.clockwiseTurn(to: .portrait) == 90)
        #expect(InterfaceOrientation.landscapeLeft.turn(to: .landscapeRight) == 180)
        #expect(InterfaceOrientation.portrait.turn(to: .portrait) == 0)
    }

    @Test func landscapeAndPortrait() {
        #expect(InterfaceOrientation.allCases.filter(\.isLandscape) == [.landscapeRight, .landscapeLeft])
        #expect(InterfaceOrientation.allCases.filter(\.isPortrait) == [.portrait, .portraitUpsideDown])
    }
}

@Suite("Orientation mask")
struct OrientationMaskTests {
    @Test func namedMasks() {
        #expect(OrientationMask.landscape.orientations == [.landscapeRight, .landscapeLeft])
        #expect(OrientationMask.allButUpsideDown.orientations == [.portrait, .landscapeRight, .landscapeLeft])
        #expect(OrientationMask.all.orientations == InterfaceOrientation.allCases)
        #expect(OrientationMask().orientations.isEmpty)
    }

    @Test(arguments: InterfaceOrientation.allCases)
    func singleMasks(orientation: InterfaceOrientation) {
        let mask = OrientationMask(orientation)
        #expect(mask.orientations == [orientation])
        for other in InterfaceOrientation.allCases { #expect(mask.allows(other) == (other == orientation)) }
    }

    @Test func setAlgebra() {
        let m = OrientationMask([.portrait, .landscapeLeft])
        #expect(m.intersection(.landscape) == .landscapeLeft)
        #expect(m.intersection(.portraitUpsideDown).isEmpty)
        #expect(m.union(.landscapeRight) == .allButUpsideDown)
        #expect(m.names == ["portrait", "landscape-left"])
        #expect(m.description == "[portrait, landscape-left]")
        #expect(OrientationMask(rawValue: 0xFF) == .all)
    }
}
