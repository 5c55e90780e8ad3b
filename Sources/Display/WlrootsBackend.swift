import Foundation

/// Any wlroots compositor with wlr-output-management (labwc, Hyprland, cage 0.1.5 and later,
/// sway), through `wlr-randr`. Its transforms are counter-clockwise (the Wayland protocol's);
/// Upright converts at this edge. Touch mapping has no protocol here: it is the compositor's
/// own configuration (labwc's `<touch mapToOutput>`, Hyprland's `input:touchdevice:output`).
public struct WlrootsBackend: DisplayBackend {
    public var kind: DisplayBackendKind { .wlroots }
    public var endpoint: String { display }
    private let display: String
    private let tool: HelperProgram
    /// The mode to state with each change when the compositor reports none (headless outputs).
    private let modeHint: OutputState.Mode?

    /// `display` is the `WAYLAND_DISPLAY` (a name in `XDG_RUNTIME_DIR` or an absolute path).
    public init(display: String, modeHint: OutputState.Mode? = nil) {
        self.display = display
        self.modeHint = modeHint
        tool = HelperProgram(name: "wlr-randr", environment: ["WAYLAND_DISPLAY": display])
    }

    /// True when the compositor offers wlr-output-management (wlr-randr can list its heads).
    public func isSupported() async -> Bool { (try? await tool.run([])) != nil }

    public func outputs() async throws(DisplayError) -> [OutputState] {
        Self.parseListing(try await tool.run([]))
    }

    /// `wlr-randr --output NAME --off|--on`.
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        _ = try await tool.run(["--output", output.name, on ? "--on" : "--off"])
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        var arguments = ["--output", output.name]
        if !output.active || output.mode == nil {
            // Some compositors report a head without its mode (sway's headless outputs); a change
            // then has to state the whole configuration in one request.
            guard let mode = output.mode ?? modeHint else {
                throw DisplayError(
                    "the compositor reports no mode for \(output.name); set [display] mode = \"WIDTHxHEIGHT\"")
            }
            arguments += ["--on", "--custom-mode", "\(mode)"]
        }
        _ = try await tool.run(arguments + ["--transform", transform.wlrName])
    }

    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        []
    }

    /// Reads wlr-randr's listing.
    public static func parseListing(_ text: String) -> [OutputState] {
        var outputs: [OutputState] = []
        // The monitor's make, model and serial (wlr-randr 0.3 on), put together at each output's end.
        var monitor: [String: String] = [:]
        func named() {
            guard let make = monitor["Make"], !outputs.isEmpty else { return }
            outputs[outputs.count - 1].identity = MonitorIdentity.text(
                make: make, model: monitor["Model"], serial: monitor["Serial"])
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if !line.hasPrefix(" ") {
                named()
                monitor = [:]
                let name = line.split(separator: " ").first.map(String.init) ?? ""
                outputs.append(OutputState(name: name, active: false, transform: nil, canRotate: true))
                continue
            }
            guard !outputs.isEmpty else { continue }
            let t = line.trimmingCharacters(in: .whitespaces)
            if let key = ["Make", "Model", "Serial"].first(where: { t.hasPrefix($0 + ":") }) {
                monitor[key] = t.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
            } else if t.hasPrefix("Enabled:") {
                outputs[outputs.count - 1].active = t.hasSuffix("yes")
            } else if t.hasPrefix("Transform:") {
                outputs[outputs.count - 1].transform = OutputTransform(
                    wlrName: t.dropFirst("Transform:".count).trimmingCharacters(in: .whitespaces))
            } else if t.contains("current"), let size = t.split(separator: " ").first,
                let mode = OutputState.Mode(String(size))
            {
                outputs[outputs.count - 1].mode = mode
            }
        }
        named()
        if let i = outputs.firstIndex(where: \.active) { outputs[i].showsUpright = true }
        return outputs
    }
}
