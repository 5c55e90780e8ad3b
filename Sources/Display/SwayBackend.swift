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
    public func version() throws(DisplayError) -> String {
        let data = try ipc.request(.getVersion)
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (object?["human_readable"] as? String) ?? "unknown"
    }

    public func outputs() throws(DisplayError) -> [OutputState] {
        let data = try ipc.request(.getOutputs)
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw DisplayError("sway's get_outputs reply is not a list of outputs")
        }
        let mine = try? outputShowingProcess(getpid())
        return list.compactMap { o -> OutputState? in
            guard let name = o["name"] as? String else { return nil }
            var mode: OutputState.Mode?
            if let m = o["current_mode"] as? [String: Any], let w = m["width"] as? Int, let h = m["height"] as? Int {
                mode = OutputState.Mode(width: w, height: h)
            }
            let focused = (o["focused"] as? Bool) ?? false
            return OutputState(
                name: name, active: (o["active"] as? Bool) ?? false,
                transform: (o["transform"] as? String).flatMap(OutputTransform.init(swayName:)), mode: mode,
                showsUpright: mine.map { $0 == name } ?? focused, canRotate: true)
        }
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) throws(DisplayError) {
        try ipc.run("output \(quoted(output.name)) transform \(transform.swayName)")
    }

    public func mapTouch(to output: OutputState, transform: OutputTransform) throws(DisplayError) -> [String] {
        let data = try ipc.request(.getInputs)
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw DisplayError("sway's get_inputs reply is not a list of inputs")
        }
        let touch = list.filter { ["touch", "tablet_tool"].contains($0["type"] as? String ?? "") }
            .compactMap { $0["identifier"] as? String }
        for id in touch { try ipc.run("input \(quoted(id)) map_to_output \(quoted(output.name))") }
        return touch
    }

    /// The output whose tree holds a window of process `pid`, if any.
    private func outputShowingProcess(_ pid: pid_t) throws(DisplayError) -> String? {
        let data = try ipc.request(.getTree)
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        func search(_ node: [String: Any], output: String?) -> String? {
            let here = (node["type"] as? String) == "output" ? node["name"] as? String : output
            if (node["pid"] as? Int).map({ pid_t($0) == pid }) == true { return here }
            for key in ["nodes", "floating_nodes"] {
                for child in (node[key] as? [[String: Any]]) ?? [] {
                    if let found = search(child, output: here) { return found }
                }
            }
            return nil
        }
        return search(root, output: nil)
    }

    private func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
}
