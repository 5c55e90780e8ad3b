import Foundation
import Glibc

/// sway, through its IPC socket (`$SWAYSOCK`): `get_outputs`, `output NAME transform N`
/// (clockwise, as Upright's convention), and `input ID map_to_output NAME` for touch.
public struct SwayBackend: DisplayBackend {
    public var kind: DisplayBackendKind { .sway }
    public var endpoint: String { ipc.socketPath }
    private let ipc: SwayIPC

    public init(socketPath: String) {
        ipc = SwayIPC(socketPath: socketPath)
    }

    /// sway's version string, which also proves the socket answers.
    public func version() async throws(DisplayError) -> String {
        struct Version: Decodable { var human_readable: String? }
        return try await ipc.decode(Version.self, ipc.request(.getVersion), what: "get_version").human_readable
            ?? "unknown"
    }

    /// An output as `get_outputs` describes it.
    struct Output: Decodable {
        struct Mode: Decodable {
            var width: Int
            var height: Int
        }
        var name: String
        var active: Bool?
        var focused: Bool?
        var transform: String?
        var current_mode: Mode?
        var make: String?
        var model: String?
        var serial: String?
    }

    public func outputs() async throws(DisplayError) -> [OutputState] {
        let list = try await ipc.decode([Output].self, ipc.request(.getOutputs), what: "get_outputs")
        let mine = try? await outputShowingProcess(getpid())
        return list.map { o in
            OutputState(
                name: o.name, active: o.active ?? false,
                transform: o.transform.flatMap(OutputTransform.init(swayName:)),
                mode: o.current_mode.map { OutputState.Mode(width: $0.width, height: $0.height) },
                showsUpright: mine.map { $0 == o.name } ?? (o.focused ?? false), canRotate: true,
                identity: o.make.map { MonitorIdentity.text(make: $0, model: o.model, serial: o.serial) })
        }
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        try await ipc.run("output \(quoted(output.name)) transform \(transform.swayName)")
    }

    /// `output NAME power on|off` (sway 1.8 on), else `dpms on|off` (sway 1.7).
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        do {
            try await ipc.run("output \(quoted(output.name)) power \(on ? "on" : "off")")
        } catch {
            try await ipc.run("output \(quoted(output.name)) dpms \(on ? "on" : "off")")
        }
    }

    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        let touch = try await touchInputs()
        guard !touch.isEmpty else { return [] }
        // Each touchscreen udev knows goes to its own output; any other (a pen, one udev does not
        // describe, or one whose monitor cannot be told) to Upright's.
        let decisions = TouchAssignment.decide(Touchscreen.found(), outputs: (try? await outputs()) ?? [output])
        var mapped: [String] = []
        for id in touch {
            let own = decisions.first { $0.touchscreen.swayIdentifier == id }?.output ?? output.name
            try await ipc.run("input \(quoted(id)) map_to_output \(quoted(own))")
            if own == output.name { mapped.append(id) }
        }
        return mapped
    }

    /// An input device as `get_inputs` lists it: what Upright reads of it.
    private struct Input: Decodable {
        struct LibInput: Decodable { var calibration_matrix: [Double]? }
        var identifier: String
        var type: String?
        var libinput: LibInput?
    }

    private func inputs() async throws(DisplayError) -> [Input] {
        try await ipc.decode([Input].self, ipc.request(.getInputs), what: "get_inputs")
    }

    /// sway's touch and pen devices, by identifier.
    private func touchInputs() async throws(DisplayError) -> [String] {
        try await inputs().filter { ["touch", "tablet_tool"].contains($0.type ?? "") }.map(\.identifier)
    }

    public func touchDevices() async -> [String] { (try? await touchInputs())?.sorted() ?? [] }

    /// The calibration matrix libinput applies to `identifier` now, as sway says it (`nil`: sway
    /// does not know the device, or says no matrix).
    public func calibration(of identifier: String) async -> [Double]? {
        let list = try? await inputs()
        return list?.first { $0.identifier == identifier }?.libinput?.calibration_matrix.flatMap {
            $0.count == 6 ? $0 : nil
        }
    }

    /// sway's output events (plugged, enabled, mode or transform changed) and input events (a
    /// touchscreen plugged in), until sway goes away.
    public func changes() -> AsyncStream<Void> { ipc.events(["output", "input"]) }

    /// A node of `get_tree`: outputs, workspaces, containers, windows.
    final class Node: Decodable {
        var type: String?
        var name: String?
        var pid: Int?
        var nodes: [Node]?
        var floating_nodes: [Node]?
    }

    /// The output whose tree holds a window of process `pid`, if any.
    private func outputShowingProcess(_ pid: pid_t) async throws(DisplayError) -> String? {
        let root = try await ipc.decode(Node.self, ipc.request(.getTree), what: "get_tree")
        func search(_ node: Node, output: String?) -> String? {
            let here = node.type == "output" ? node.name : output
            if node.pid.map({ pid_t($0) == pid }) == true { return here }
            for child in (node.nodes ?? []) + (node.floating_nodes ?? []) {
                if let found = search(child, output: here) { return found }
            }
            return nil
        }
        return search(root, output: nil)
    }

    private func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
}
