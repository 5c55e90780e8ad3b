import Foundation

/// An X server through RandR (`xrandr`), with every touchscreen's coordinate transformation
/// matrix set on each turn (`xinput`): X does not turn touch input with the output.
public struct X11Backend: DisplayBackend {
    public var kind: DisplayBackendKind { .x11 }
    public var endpoint: String { display }
    private let display: String
    private let xrandr: HelperProgram
    private let xinput: HelperProgram
    /// Touch devices by name; empty: every device with a touch class.
    private let touchDevices: [String]

    public init(display: String, touchDevices: [String] = []) {
        self.display = display
        self.touchDevices = touchDevices
        xrandr = HelperProgram(name: "xrandr", environment: ["DISPLAY": display])
        xinput = HelperProgram(name: "xinput", environment: ["DISPLAY": display])
    }

    public func outputs() async throws(DisplayError) -> [OutputState] {
        Self.parseListing(try await xrandr.run(["--verbose", "--query"]))
    }

    /// DPMS through `xset dpms force off|on` (the whole X display).
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        _ = try await HelperProgram(name: "xset", environment: ["DISPLAY": display]).run([
            "dpms", "force", on ? "on" : "off",
        ])
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        guard output.canRotate || transform == .normal else {
            throw DisplayError("the X server cannot turn \(output.name) (RandR offers no rotation for it)")
        }
        _ = try await xrandr.run(["--output", output.name, "--rotate", transform.xrandrName])
    }

    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        let devices = try await touchscreens()
        let matrix = transform.touchMatrix.map { String($0) }
        for d in devices {
            // The whole-screen matrix: a kiosk shows one output (xinput's map-to-output would
            // replace it with the output's own area, read before the turn took effect).
            _ = try await xinput.run(["set-prop", d, "--type=float", "Coordinate Transformation Matrix"] + matrix)
        }
        return devices
    }

    /// A device's current coordinate transformation matrix, for checks.
    public func touchMatrix(of device: String) async throws(DisplayError) -> [Double] {
        let text = try await xinput.run(["list-props", device])
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Coordinate Transformation Matrix") }),
            let colon = line.lastIndex(of: ":")
        else { throw DisplayError("\(device) has no coordinate transformation matrix") }
        return line[line.index(after: colon)...].split(separator: ",").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
    }

    /// The configured devices, or every slave device with an `XITouchClass`.
    private func touchscreens() async throws(DisplayError) -> [String] {
        if !touchDevices.isEmpty { return touchDevices }
        let text = try await xinput.run(["list", "--long"])
        var found: [String] = []
        var current: String?
        for line in text.split(separator: "\n") {
            if let idRange = line.range(of: "id=") {
                let digits = line[idRange.upperBound...].prefix { $0.isNumber }
                current = String(digits)
            } else if line.contains("XITouchClass"), let id = current, !found.contains(id) {
                found.append(id)
            }
        }
        return found
    }

    /// Reads `xrandr --verbose --query`: connected outputs, the current rotation after the mode id,
    /// and the rotations RandR offers in the parentheses after it.
    public static func parseListing(_ text: String) -> [OutputState] {
        var outputs: [OutputState] = []
        for line in text.split(separator: "\n") where !line.hasPrefix(" ") && !line.hasPrefix("\t") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, words[1] == "connected" else { continue }
            var output = OutputState(name: words[0], active: false, transform: nil, canRotate: false)
            output.showsUpright = words.contains("primary")
            if let geometry = words.first(where: { $0.contains("+") && $0.contains("x") }),
                let size = geometry.split(separator: "+").first, var mode = OutputState.Mode(String(size))
            {
                output.active = true
                // Rotation word, then the offered rotations in parentheses: "(0x3a) left (normal left ...)".
                let rest = line.components(separatedBy: geometry).last ?? ""
                let afterID = rest.replacingOccurrences(of: #"\(0x[0-9a-f]+\)"#, with: "", options: .regularExpression)
                let rotation = afterID.split(separator: " ").first.map(String.init) ?? "normal"
                output.transform = OutputTransform(xrandrName: rotation) ?? .normal
                if let open = afterID.firstIndex(of: "("), let close = afterID.firstIndex(of: ")") {
                    let offered = afterID[afterID.index(after: open)..<close].split(separator: " ")
                    output.canRotate = offered.contains("left") || offered.contains("right")
                }
                if let t = output.transform, t.clockwise % 180 == 90 {
                    mode = .init(width: mode.height, height: mode.width)
                }
                output.mode = mode
            }
            outputs.append(output)
        }
        if !outputs.contains(where: \.showsUpright), let i = outputs.firstIndex(where: \.active) {
            outputs[i].showsUpright = true
        }
        return outputs
    }
}
