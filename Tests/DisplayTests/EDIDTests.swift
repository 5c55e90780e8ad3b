import Display
import Foundation
import OrientationCore
import Playback
import Settings
import TestSupport
import Testing

/// Monitors by their EDID: three real ones (as the kernel shows them in
/// `/sys/class/drm/*/edid`, from the public linuxhw/EDID collection), the output chosen by its
/// monitor wherever it is plugged, and bytes from a broken or hostile monitor.
@Suite("Monitors by their EDID")
struct EDIDTests {
    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! }
    }

    /// A 32" Dell monitor (HDMI), with a name and a serial in its descriptors, and a CTA block.
    static let dell = bytes(
        """
        00 ff ff ff ff ff ff 00 10 ac 0b 20 01 01 01 01 20 1c 01 03 80 46 27 78 2a cd e5 a0 59 4e a1 25
        0e 50 54 a5 4b 00 71 4f 81 80 a9 c0 d1 c0 01 01 01 01 01 01 01 01 02 3a 80 18 71 38 2d 40 58 2c
        45 00 ba 89 21 00 00 1e 00 00 00 ff 00 58 39 52 35 4b 38 38 36 34 4d 31 45 0a 00 00 00 fc 00 44
        33 32 31 38 48 4e 0a 20 20 20 20 20 00 00 00 fd 00 38 4c 1e 53 11 00 0a 20 20 20 20 20 20 01 ce
        02 03 1a b1 4f 90 05 04 03 02 07 06 1f 14 13 12 11 16 15 01 65 03 0c 00 10 00 02 3a 80 18 71 38
        2d 40 58 2c 45 00 ba 89 21 00 00 1e 01 1d 80 18 71 1c 16 20 58 2c 25 00 ba 89 21 00 00 9e 01 1d
        00 72 51 d0 1e 20 6e 28 55 00 ba 89 21 00 00 1e 02 3a 80 d0 72 38 2d 40 10 2c 45 80 ba 89 21 00
        00 1e 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 42
        """)
    /// An Iiyama monitor whose name is "HDMI" padded with newlines, that announces an extension
    /// block it does not have.
    static let iiyama = bytes(
        """
        00 ff ff ff ff ff ff 00 26 cd e4 46 50 2d 31 01 1e 11 01 03 81 21 1b 78 ea ae a5 a6 54 4c 99 26
        14 50 54 bf ef 00 81 80 01 01 01 01 01 01 01 01 01 01 01 01 01 01 9e 20 00 90 51 20 1f 30 48 80
        36 00 51 0e 11 00 00 1c 00 00 00 fc 00 48 44 4d 49 0a 0a 0a 0a 0a 0a 0a 0a 0a 00 00 00 fd 00 37
        4c 1d 52 0e 00 0a 20 20 20 20 20 20 00 00 00 ff 00 35 38 36 36 37 33 30 30 30 30 30 31 0a 01 d6
        """)
    /// A BOE laptop panel (eDP): no name, no serial, only alphanumeric strings.
    static let boe = bytes(
        """
        00 ff ff ff ff ff ff 00 09 e5 df 05 00 00 00 00 01 16 01 04 95 1d 10 78 0a f8 90 9e 59 55 9c 26
        1a 50 54 00 00 00 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 3e 1c 56 a0 50 00 16 30 30 20
        36 00 25 a5 10 00 00 1a d4 12 56 a0 50 00 16 30 30 20 36 00 25 a5 10 00 00 1a 00 00 00 fe 00 42
        4f 45 20 48 46 0a 20 20 20 20 20 20 00 00 00 fe 00 48 42 31 33 33 57 58 31 2d 34 30 32 0a 00 0c
        """)

    static let names = ["DEL": "Dell Inc.", "IVM": "Iiyama North America", "BOE": "BOE"]

    @Test func threeRealMonitorsAreNamedAsKanshiNamesThem() throws {
        let dell = try #require(MonitorIdentity(edid: Self.dell, pnpName: { Self.names[$0] }))
        #expect(dell.vendorID == "DEL" && dell.make == "Dell Inc." && dell.model == "D3218HN")
        #expect(dell.serial == "X9R5K8864M1E")
        #expect(dell.description == "Dell Inc. D3218HN X9R5K8864M1E")
        let iiyama = try #require(MonitorIdentity(edid: Self.iiyama, pnpName: { Self.names[$0] }))
        #expect(iiyama.description == "Iiyama North America HDMI 586673000001")
        let panel = try #require(MonitorIdentity(edid: Self.boe, pnpName: { Self.names[$0] }))
        #expect(panel.model == "0x05DF" && panel.serial == nil, "no name: the product code; no serial at all")
        #expect(panel.description == "BOE 0x05DF Unknown")
        // Without the PNP table, the maker's three letters.
        #expect(MonitorIdentity(edid: Self.dell)?.description == "DEL D3218HN X9R5K8864M1E")
    }

    @Test func anIdentityIsMatchedWholeWithRunsOfSpacesAsOne() throws {
        let dell = try #require(MonitorIdentity(edid: Self.dell, pnpName: { Self.names[$0] }))
        #expect(dell.isNamed("Dell Inc.  D3218HN X9R5K8864M1E "))
        #expect(!dell.isNamed("Dell Inc. D3218HN"), "a model alone names every monitor of the model")
        #expect(!dell.isNamed("HDMI-A-1"))
    }

    /// What a broken or hostile monitor may send: short, a wrong header, a maker's code out of
    /// range, control bytes in the name; every length up to 300 bytes of noise reads without a trap.
    @Test func bytesThatAreNotAnEDIDAreNil() {
        #expect(MonitorIdentity(edid: Array(Self.dell.prefix(127))) == nil)
        #expect(MonitorIdentity(edid: [0x01] + Self.dell.dropFirst()) == nil)
        var zeroMaker = Self.dell
        (zeroMaker[8], zeroMaker[9]) = (0, 0)
        #expect(MonitorIdentity(edid: zeroMaker) == nil)
        var odd = Self.dell
        for (i, b) in [0x44, 0x01, 0x1b, 0xff, 0x0a].enumerated() { odd[95 + i] = UInt8(b) }
        #expect(MonitorIdentity(edid: odd)?.model == "D???")
        var random = SystemRandomNumberGenerator()
        for count in 0...300 {
            var noise = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            if count >= 8 { noise.replaceSubrange(0..<8, with: Self.dell.prefix(8)) }
            _ = MonitorIdentity(edid: noise)
        }
    }

    /// `/sys/class/drm` as the kernel lays it out, in a folder: the connectors with a monitor, by
    /// name; an empty `edid` (nothing plugged in) and the card itself are not monitors.
    @Test func theConnectedMonitorsAreReadFromTheKernelsConnectors() throws {
        let root = NSTemporaryDirectory() + "drm-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = [
            "card0-HDMI-A-1": Self.dell, "card0-eDP-1": Self.boe, "card0-DP-1": [], "card0": Self.iiyama,
        ]
        for (dir, bytes) in files {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + dir + "/edid"))
        }
        try "DEL\tDell Inc.\nBOE\tBOE\n".write(toFile: root + "/pnp.ids", atomically: true, encoding: .utf8)
        let found = MonitorIdentity.connected(root: root, pnp: root + "/pnp.ids")
        #expect(found.map(\.connector) == ["HDMI-A-1", "eDP-1"])
        #expect(found.map(\.identity.description) == ["Dell Inc. D3218HN X9R5K8864M1E", "BOE 0x05DF Unknown"])
    }

    /// `[display] output` names a monitor: it is chosen on whichever connector it is plugged into.
    @Test func theOutputIsChosenByItsMonitorWhereverItIsPlugged() throws {
        var settings = DisplaySettings()
        settings.output = "Dell Inc. D3218HN X9R5K8864M1E"
        let before = [
            OutputState(name: "HDMI-A-1", identity: "Dell Inc. D3218HN X9R5K8864M1E"),
            OutputState(name: "HDMI-A-2", identity: "Iiyama North America HDMI 586673000001"),
        ]
        #expect(try settings.chooseOutput(among: before, backend: .sway).name == "HDMI-A-1")
        let moved = [
            OutputState(name: "HDMI-A-1", identity: "Iiyama North America HDMI 586673000001"),
            OutputState(name: "DP-2", identity: "Dell Inc. D3218HN X9R5K8864M1E"),
        ]
        #expect(try settings.chooseOutput(among: moved, backend: .sway).name == "DP-2")
        settings.output = "DP-2"
        #expect(try settings.chooseOutput(among: moved, backend: .sway).name == "DP-2", "a connector still names one")
        settings.output = "Dell Inc. D3218HN ANOTHER"
        #expect {
            try settings.chooseOutput(among: moved, backend: .sway)
        } throws: { error in
            "\(error)".hasSuffix(
                "the sway backend lists: HDMI-A-1 (Iiyama North America HDMI 586673000001), DP-2 (Dell Inc. D3218HN X9R5K8864M1E)"
            )
        }
    }
}

/// Which output each touchscreen belongs to, as values: a udev rule's `WL_OUTPUT` (a connector or
/// a monitor), a built-in panel's, a touch monitor's own, and the case that cannot be told.
@Suite("Touchscreens and their outputs")
struct TouchAssignmentTests {
    static let panel = Touchscreen(name: "Goodix Capacitive TouchScreen", vendor: 0x0416, product: 0x038f, bus: "i2c")
    static let monitor = Touchscreen(name: "ILITEK ILITEK-TP", vendor: 0x222a, product: 0x0001, bus: "usb")
    static let tablet = [
        OutputState(name: "eDP-1", identity: "BOE 0x05DF Unknown"),
        OutputState(name: "HDMI-A-1", identity: "Iiyama North America HDMI 586673000001"),
    ]

    static func outputs(_ t: [Touchscreen], _ o: [OutputState]) -> [String?] {
        TouchAssignment.decide(t, outputs: o).map(\.output)
    }

    @Test func aBuiltInPanelAndATouchMonitorEachGoToTheirOwn() {
        #expect(Self.outputs([Self.panel, Self.monitor], Self.tablet) == ["eDP-1", "HDMI-A-1"])
        let why = TouchAssignment.decide([Self.panel, Self.monitor], outputs: Self.tablet).map(\.why)
        #expect(why == ["built in: the built-in panel's connector", "a touch monitor: the only external monitor"])
    }

    @Test func aUdevRuleNamesTheOutputByConnectorOrByMonitor() {
        var ruled = Self.monitor
        ruled.wlOutput = "eDP-1"
        #expect(Self.outputs([ruled], Self.tablet) == ["eDP-1"])
        ruled.wlOutput = "Iiyama North America  HDMI 586673000001"
        #expect(Self.outputs([ruled], Self.tablet) == ["HDMI-A-1"], "the monitor, wherever it is plugged")
        ruled.wlOutput = "DP-9"
        let d = TouchAssignment.decide([ruled], outputs: Self.tablet)
        #expect(d.first?.output == nil && d.first?.why == "its udev WL_OUTPUT (DP-9) names no output here")
    }

    @Test func oneOutputTakesEveryTouchscreenAndTwoMonitorsCannotBeTold() {
        #expect(Self.outputs([Self.panel, Self.monitor], [OutputState(name: "HDMI-A-1")]) == ["HDMI-A-1", "HDMI-A-1"])
        let two = [OutputState(name: "HDMI-A-1"), OutputState(name: "HDMI-A-2")]
        let d = TouchAssignment.decide([Self.monitor], outputs: two)
        #expect(d.first?.output == nil)
        #expect(d.first?.why == "cannot tell its monitor among 2 outputs: name it with a udev rule (WL_OUTPUT)")
    }

    @Test func swayNamesATouchscreenByItsNumbersAndName() {
        #expect(Self.panel.swayIdentifier == "1046:911:Goodix_Capacitive_TouchScreen")
        #expect(!Self.panel.isExternal && Self.monitor.isExternal)
    }
}

/// A tap at each of the panel's corners, as the person holding it sees them, lands at the
/// picture's matching corner: every natural orientation of the panel, every interface
/// orientation, both strategies, and in the `surface` strategy whatever the output shows.
@Suite("Where a touch lands")
struct TouchPathTests {
    static let corners: [TouchPath.Point] = [(0, 0), (1, 0), (0, 1), (1, 1), (0.5, 0.5), (0.25, 0.1)]
    static let all = InterfaceOrientation.allCases

    @Test func aTapAtEachCornerLandsAtThePicturesCornerInEveryOrientationAndStrategy() {
        var checked = 0
        for natural in Self.all {
            for interface in Self.all {
                // The person holds the device so that `interface` is upright: their frame is the
                // one the output shows when turned to show it.
                let held = OutputTransform(interface: interface, natural: natural)
                let cases: [(AppliedStrategy, OutputTransform)] =
                    [(.interface, held)] + (0..<4).map { (.surface, OutputTransform(clockwise: 90 * $0)) }
                for (strategy, output) in cases {
                    for c in Self.corners {
                        let panel = TouchPath.turned(c, by: OutputTransform(clockwise: -held.clockwise))
                        let p = TouchPath.picturePoint(
                            panel: panel, strategy: strategy, interface: interface, output: output, natural: natural)
                        #expect(
                            abs(p.x - c.x) < 1e-9 && abs(p.y - c.y) < 1e-9,
                            "\(natural) panel, \(interface), \(strategy), output \(output): \(c) lands at \(p)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 4 * 4 * 5 * Self.corners.count)
    }

    /// The picture's turn in the `surface` strategy, and a window's corner taken back to the picture's.
    @Test func theSurfaceStrategyTurnsWhatReachesTheWindowByThePicturesTurn() {
        let turn = TouchPath.pictureTurn(interface: .landscapeRight, output: .normal, natural: .portrait)
        #expect(turn == OutputTransform(clockwise: 90))
        let p = TouchPath.picturePoint(
            window: (1, 0), strategy: .surface, interface: .landscapeRight, output: .normal, natural: .portrait)
        #expect(p == (0, 0), "the window's top-right is the turned picture's top-left")
        let same = TouchPath.picturePoint(
            window: (1, 0), strategy: .interface, interface: .landscapeRight, output: .normal, natural: .portrait)
        #expect(same == (1, 0))
    }

    /// The way back from the picture to the touchscreen's own point is the way there undone, and
    /// it agrees with the player's overlays (drawn at the window's points of the picture's).
    @Test func aPicturesPointGoesBackToThePanelsThroughThePictureAndTheOutput() {
        for natural in Self.all {
            for interface in Self.all {
                for output in (0..<4).map({ OutputTransform(clockwise: 90 * $0) }) {
                    let turn = TouchPath.pictureTurn(interface: interface, output: output, natural: natural)
                    let layout = OverlayLayout(width: 1, height: 1, angle: turn.clockwise)
                    for c in Self.corners {
                        let panel = TouchPath.panelPoint(picture: c, pictureTurn: turn.clockwise, output: output)
                        let p = TouchPath.picturePoint(
                            panel: panel, strategy: .surface, interface: interface, output: output, natural: natural)
                        #expect(abs(p.x - c.x) < 1e-9 && abs(p.y - c.y) < 1e-9, "\(c) back as \(panel), there as \(p)")
                        let drawn = layout.toPanel(x: c.x, y: c.y), window = TouchPath.turned(panel, by: output)
                        #expect(abs(drawn.x - window.x) < 1e-9 && abs(drawn.y - window.y) < 1e-9)
                    }
                }
            }
        }
    }
}

/// A touch check's rules, as values: taps judged against their targets, and the matrix that a
/// mounting error calls for.
@Suite("The touch check")
struct TouchCalibrationTests {
    /// A landscape-right picture on a portrait panel, turned on its surface (the output left as it is).
    static func path(_ panel: TouchPath.Point) -> TouchPath.Point {
        TouchPath.picturePoint(
            panel: panel, strategy: .surface, interface: .landscapeRight, output: .normal, natural: .portrait)
    }
    static func back(_ picture: TouchPath.Point) -> TouchPath.Point {
        let turn = TouchPath.pictureTurn(interface: .landscapeRight, output: .normal, natural: .portrait)
        return TouchPath.turned(picture, by: OutputTransform(clockwise: -turn.clockwise))
    }

    /// Taps where a person aims, through a touchscreen that reports `mounted(p)` for panel point p.
    static func check(_ mounted: (TouchPath.Point) -> TouchPath.Point) -> TouchCalibration {
        var c = TouchCalibration(width: 1280, height: 800)
        while let target = c.next { c.record(Self.path(mounted(Self.back(target)))) }
        return c
    }

    @Test func aRightMappingIsAllHitsAndNoCalibration() throws {
        let c = Self.check { $0 }
        #expect(c.allHit && c.taps.count == 5)
        let m = try #require(c.matrix(toPanel: Self.back))
        for (v, want) in zip(m, [1.0, 0, 0, 0, 1, 0]) { #expect(abs(v - want) < 1e-9, "\(m)") }
    }

    @Test func aMirroredTouchscreenIsMissedWithItsOffsetsAndTheMatrixPutsItRight() throws {
        let mirror: (TouchPath.Point) -> TouchPath.Point = { (1 - $0.x, $0.y) }
        let c = Self.check(mirror)
        #expect(!c.allHit)
        #expect(c.taps.filter(\.hit).count == 1, "only the centre")
        let first = try #require(c.taps.first)
        #expect(!first.hit && abs(abs(first.dx) + abs(first.dy) - 0.8 * 800) < 1e-6, "\(first.dx), \(first.dy)")
        let m = try #require(c.matrix(toPanel: Self.back))
        for (v, want) in zip(m, [-1.0, 0, 1, 0, 1, 0]) { #expect(abs(v - want) < 1e-9, "\(m)") }
        // Applied to what the touchscreen reports, every tap lands on its target again.
        let calibrated = Self.check { p in
            let r = mirror(p)
            return (m[0] * r.x + m[1] * r.y + m[2], m[3] * r.x + m[4] * r.y + m[5])
        }
        #expect(calibrated.allHit)
    }

    @Test func aTapNearItsTargetIsAHitAndTooFewTapsAreNoMatrix() throws {
        var c = TouchCalibration(width: 1000, height: 500, tolerance: 0.04)
        c.record((0.1 + 15.0 / 1000, 0.1))
        c.record((0.9 + 25.0 / 1000, 0.1))
        let (near, far) = (c.taps[0], c.taps[1])
        #expect(near.hit && abs(near.dx - 15) < 1e-9)
        #expect(!far.hit, "25 px beyond 4 % of 500 px")
        #expect(c.matrix(toPanel: { $0 }) == nil)
        #expect(TouchCalibration.fit([(0, 0), (0.5, 0.5), (1, 1)], [0, 1, 2]) == nil, "on a line")
    }

    /// libinput's matrix replaces the one in force: the one to set is the taps' fit after it.
    @Test func theMatrixToSetIsTheFitAfterTheOneInForce() {
        let mirror: [Double] = [-1, 0, 1, 0, 1, 0], identity: [Double] = [1, 0, 0, 0, 1, 0]
        #expect(TouchCalibration.compose(mirror, mirror) == identity, "a mirror undone")
        #expect(TouchCalibration.compose(mirror, identity) == mirror)
        let quarter: [Double] = [0, 1, 0, -1, 0, 1]  // (y, 1 - x)
        let after = TouchCalibration.compose(quarter, mirror)  // mirror first: (1 - x, y), then (y, x)
        #expect(after == [0, 1, 0, 1, 0, 0], "\(after)")
    }

    @Test func swaysDropInNamesTheDeviceAndTheMatrix() {
        let text = TouchCalibration.swayDropIn(identifier: "1046:911:Goodix", matrix: [-1, 0, 1, 0, 1, 0])
        #expect(text.hasSuffix("input \"1046:911:Goodix\" calibration_matrix -1.0 0 1.0 0 1.0 0\n"))
    }
}
