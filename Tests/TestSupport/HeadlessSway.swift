import Blocking
import Foundation
public import Picture

/// A headless sway started for a test (`scripts/headless-sway.sh`, as an unprivileged user when
/// the test runs as root), with `swaymsg` and `grim` pointed at it. Stopped by ``stop()``.
public final class HeadlessSway: Sendable {
    public let pid: Int32
    /// Signals go to sway through it: once sway is gone, its pid may be another process's.
    public let process: ProcessIdentity
    public let runtimeDirectory: String
    public let socket: String
    /// The Wayland socket's absolute path (libwayland accepts one in `WAYLAND_DISPLAY`).
    public let wayland: String
    public let directory: String

    /// The package's root directory, found from this file.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A fresh directory for a sway, whose runtime directory is `DIRECTORY/runtime`.
    public static func newDirectory() -> String {
        NSTemporaryDirectory() + "upright-sway-\(UUID().uuidString.prefix(8))"
    }

    /// Starts sway with one output of `mode` in `directory` (a new one by default); throws with the
    /// script's words when it cannot. Its Wayland socket is `DIRECTORY/runtime/wayland-1`.
    /// `include` is a sway configuration read after the output's (the packaged kiosk session);
    /// `path` the PATH sway and its clients run with.
    public init(
        mode: String = "800x1280", directory: String = HeadlessSway.newDirectory(), include: String? = nil,
        path: String? = nil
    ) throws {
        self.directory = directory
        let out = try Self.run(
            ["\(Self.packageRoot)/scripts/headless-sway.sh", directory, mode] + (include.map { [$0] } ?? []),
            environment: path.map { ["SWAY_PATH": $0] } ?? [:])
        var values: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let p = values["SWAY_PID"].flatMap(Int32.init), let r = values["XDG_RUNTIME_DIR"],
            let s = values["SWAYSOCK"], let w = values["WAYLAND_DISPLAY"]
        else { throw HarnessError("headless-sway.sh printed no sockets: \(out)") }
        (pid, runtimeDirectory, socket, wayland) = (p, r, s, w)
        process = ProcessIdentity(p)
    }

    /// The environment a client of this sway needs.
    public var environment: [String: String] { ["SWAYSOCK": socket, "WAYLAND_DISPLAY": wayland] }

    /// Stops sway and removes its directory.
    public func stop() {
        // sway ends on SIGINT (here it does not act on SIGTERM); it is not our child, so once gone
        // it may linger as a zombie until init reaps it, and then its pid is anyone's.
        process.signal(SIGINT)
        for _ in 0..<100 where process.isRunning { usleep(10_000) }
        if process.isRunning { process.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `swaymsg ARGS` against this sway; its standard output.
    @discardableResult
    public func swaymsg(_ arguments: [String]) throws -> String {
        try Self.run(["swaymsg", "-s", socket] + arguments)
    }

    /// An output as sway's `get_outputs` lists it: the fields the tests read.
    public struct Output: Decodable, Sendable {
        public var name: String
        public var transform: String?
        /// sway 1.8's power, sway 1.7's dpms.
        public var power: Bool?
        public var dpms: Bool?
    }

    /// sway's outputs, read with swaymsg.
    public func outputs() throws -> [Output] {
        try JSONDecoder().decode([Output].self, from: Data(try swaymsg(["-t", "get_outputs", "-r"]).utf8))
    }

    /// An output's transform as sway reports it (`normal`, `90`, ...), read with swaymsg.
    public func transform(of output: String = "HEADLESS-1") throws -> String {
        guard let o = try outputs().first(where: { $0.name == output }) else {
            throw HarnessError("sway lists no output \(output)")
        }
        return o.transform ?? "?"
    }

    /// A screenshot of the whole (logical) screen, by grim.
    public func screenshot() throws -> Image {
        let data = try Self.runData(["grim", "-t", "ppm", "-"], environment: ["WAYLAND_DISPLAY": wayland])
        guard let picture = Picture(ppm: [UInt8](data)) else { throw HarnessError("grim's output is not a PPM image") }
        return picture
    }

    /// What the screen shows at the centre of `region` in each frame the compositor makes there,
    /// for `seconds`: wf-recorder (screencopy, one frame per repaint with damage) writing raw BGR0
    /// frames. Waits without holding a thread of the cooperative pool.
    public func recordCentre(
        x: Int, y: Int, width: Int, height: Int, seconds: Double
    ) async throws -> [(r: UInt8, g: UInt8, b: UInt8)] {
        let file = directory + "/recording-\(UUID().uuidString.prefix(6)).raw"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "wf-recorder", "-m", "rawvideo", "-c", "rawvideo", "-x", "bgr0", "-g", "\(x),\(y) \(width)x\(height)",
            "-f", file,
        ]
        p.environment = ProcessInfo.processInfo.environment.merging(
            ["WAYLAND_DISPLAY": wayland, "XDG_RUNTIME_DIR": runtimeDirectory]
        ) { $1 }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        try await Task.sleep(for: .seconds(seconds))
        // It stops on SIGINT; one started from a thread that blocks signals may not hear it.
        p.send(SIGINT)
        for _ in 0..<40 where p.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        if p.isRunning { p.send(SIGKILL) }
        await Blocking.run { p.waitUntilExit() }
        let data = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
        try? FileManager.default.removeItem(atPath: file)
        let size = width * height * 4
        guard data.count >= size else { throw HarnessError("wf-recorder recorded no frame") }
        let centre = ((height / 2) * width + width / 2) * 4
        return stride(from: 0, through: data.count - size, by: size).map { f in
            (data[f + centre + 2], data[f + centre + 1], data[f + centre])
        }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        String(decoding: try runData(arguments, environment: environment), as: UTF8.self)
    }

    static func runData(_ arguments: [String], environment: [String: String] = [:]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        nonisolated(unsafe) var errData = Data()  // written by the reader task, read after it ends
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw HarnessError(
                "\(arguments.joined(separator: " ")) failed (\(p.terminationStatus)): "
                    + String(decoding: errData, as: UTF8.self))
        }
        return data
    }
}

/// A screenshot: an RGB picture.
public typealias Image = Picture

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
