import Config
import Display
import Foundation
public import Logging
import MPV
public import OrientationCore
import Picture
import Player
import Sensors
import Session
import Settings
import UprightDaemon
import Wire

/// `upright demo`: the built-in test pattern and the product demo's script played through the
/// whole program (the `replay:` sensor, the policy, the player), the commands sent as the hotkey
/// would, a snapshot of the screen at the end of each step (PNG), a contact sheet of them, and the
/// decision log. Headless (mpv's software renderer) unless `window` is set and a display exists.
public struct DemoRun: Sendable {
    public var outputDirectory: String
    /// Play faster than real time (the sensor's replay and the script; transitions keep their length).
    public var speed: Double = 1
    /// Show the demo in a window (mpv's own video output) instead of rendering it headless.
    public var window = false
    /// The headless screen's size (a portrait panel).
    public var size = (width: 360, height: 640)

    public init(outputDirectory: String) { self.outputDirectory = outputDirectory }

    /// What the demo left behind.
    public struct Result: Sendable {
        public var snapshots: [String]
        public var contactSheet: String?
        public var decisionLog: String
    }

    /// Plays the demo; `step` and `decision` report progress as it goes.
    public func run(
        step: @escaping @Sendable (ProductDemo.Step) -> Void, decision: @escaping @Sendable (RotationDecision) -> Void,
        logger: Logger = Logger(label: "upright")
    ) async throws -> Result {
        try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        let logPath = outputDirectory + "/decisions.jsonl"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        let session = try PlaySession(
            configuration: try configuration(),
            extraMPV: window ? [("ao", "null")] : [("vo", "libmpv"), ("ao", "null")],
            environment: [:],
            log: { d in
                decision(d)
                log.write(Data((d.jsonLine(time: d.millisecondsText) + "\n").utf8))
            }, logger: logger)
        let renderer = window ? nil : try MPVSoftwareRenderer(session.mpvHandle)
        let (stop, finish) = AsyncStream.makeStream(of: Void.self)
        let running = Task { try await session.run(until: stop) }
        let pictures: [(path: String, picture: Picture)]
        do {
            pictures = try await play(session, renderer: renderer, step: step)
        } catch {
            renderer?.close()
            finish.yield()
            _ = await running.result
            throw error
        }
        renderer?.close()  // before mpv quits, as the render API requires
        finish.yield()
        try await running.value
        return Result(
            snapshots: pictures.map(\.path), contactSheet: contactSheet(pictures.map(\.picture)), decisionLog: logPath)
    }

    /// The session's configuration: the script's trace through the `replay:` sensor, no lock switch,
    /// and no display backend (the demo never turns a real output).
    private func configuration() throws -> UprightConfiguration {
        let trace = outputDirectory + "/demo-trace.csv"
        try Trace(samples: ProductDemo.samples()).write(to: trace)
        var configuration = UprightConfiguration()
        configuration.sensor.uri = .replay(ReplaySpec("replay:\(trace)?speed=\(speed)"))
        configuration.lock.evdev = .none
        configuration.display.backend = .none
        return configuration
    }

    /// The steps in time: each one's message and action, then its snapshot just before it ends,
    /// after any transition (0.3 s, 0.6 for a half turn).
    private func play(
        _ session: PlaySession, renderer: MPVSoftwareRenderer?, step: @Sendable (ProductDemo.Step) -> Void
    ) async throws -> [(path: String, picture: Picture)] {
        let start = ContinuousClock.now
        func sleep(until t: Double) async throws {
            let target = start + .milliseconds(Int(t / speed * 1000))
            if target > .now { try await Task.sleep(until: target, clock: .continuous) }
        }
        var pictures: [(path: String, picture: Picture)] = []
        for (i, s) in ProductDemo.steps.enumerated() {
            try await sleep(until: s.start)
            step(s)
            session.showMessage("\(i + 1). \(s.label)")
            if let action = s.action { _ = await session.request(action, from: .script) }
            try await sleep(until: max(s.start + 0.7 * speed, s.end - 0.15 * speed))
            // A render tells mpv the screen's size (the player then lays its overlays out for it);
            // the next one shows them.
            _ = await snapshot(renderer, session)
            try await Task.sleep(for: .milliseconds(60))
            if let picture = await snapshot(renderer, session) {
                let path = outputDirectory + String(format: "/%02d-%@.png", i + 1, slug(s.label))
                _ = FileManager.default.createFile(atPath: path, contents: Data(picture.png()))
                pictures.append((path, picture))
            }
        }
        return pictures
    }

    /// The snapshots side by side, five to a row; `nil` when there are none.
    private func contactSheet(_ pictures: [Picture]) -> String? {
        guard let first = pictures.first else { return nil }
        let sheet = outputDirectory + "/contact-sheet.png"
        let picture = Picture.contactSheet(pictures, columns: 5, shrink: first.width > 500 ? 3 : 2)
        _ = FileManager.default.createFile(atPath: sheet, contents: Data(picture.png()))
        return sheet
    }

    /// What the screen shows: the software renderer's frame headless; in a window mpv's own
    /// window screenshot (vo=gpu), else the compositor's (grim, on Wayland), else the video frame
    /// alone (outputs such as wlshm and x11 take no window screenshots).
    private func snapshot(_ renderer: MPVSoftwareRenderer?, _ session: PlaySession) async -> Picture? {
        func picture(_ f: MPVFrame) -> Picture {
            Picture(rgb0: f.pixels, width: f.width, height: f.height, stride: f.stride)
        }
        if let renderer { return (try? renderer.render(width: size.width, height: size.height)).map(picture) }
        if let f = try? session.mpvHandle.screenshot("window") { return picture(f) }
        if let shot = await compositorScreenshot() { return shot }
        return (try? session.mpvHandle.screenshot("subtitles")).map(picture)
    }

    /// The whole screen by `grim` (binary PPM), when on Wayland and grim is installed.
    private func compositorScreenshot() async -> Picture? {
        guard ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil else { return nil }
        return (try? await HelperProgram(name: "grim").output(["-t", "ppm", "-"])).flatMap { Picture(ppm: $0) }
    }

    private func slug(_ label: String) -> String {
        let head = label.split(separator: ":").first.map(String.init) ?? label
        return String(head.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
            .split(separator: "-").joined(separator: "-")
    }
}
