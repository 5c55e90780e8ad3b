import Blocking
import Control
import Display
import Foundation
import OrientationCore
import Session
import Synchronization
import Wire

/// The session shell's I/O for the display: whether it answers, the watches the core starts and
/// stops, and screenshots.
extension SessionShell {
    /// The screen's brightness set (`brightness N`), and the reply to its asker.
    func setBrightness(_ percent: Int) async -> ControlReply {
        guard let backlight = Backlight.find() else {
            let why = "no brightness to set: /sys/class/backlight has no backlight, and ddcutil is not installed"
            logger.notice("brightness: \(why)")
            return .refused(why)
        }
        if let why = await backlight.set(percent: percent) {
            logger.warning("brightness: \(why)")
            return .refused(why)
        }
        logger.info("brightness \(percent) % (\(backlight.name))")
        return ControlReply(ok: true, message: "brightness \(percent) % (\(backlight.name))")
    }

    /// Finds the display backend (again, for a compositor that came back) and says what it can do.
    func startDisplay(redetect: Bool) async -> (DisplayAbilities, DisplayReport) {
        let abilities = redetect ? await display.redetect() : await display.start()
        let status = await display.status
        logger.notice("display: \(status.summary)")
        return (abilities, status.report)
    }

    /// Whether the display is there; its socket's connect may wait, so off the cooperative pool.
    func presence() async -> DisplayState {
        let (environment, videoOutput) = (environment, videoOutput)
        let presence = await Blocking.run { DisplayPresence.check(environment: environment, videoOutput: videoOutput) }
        switch presence {
        case .present: return .present
        case .waiting(let why): return .waiting(why)
        case .none(let why): return .missing(why)
        }
    }

    /// Asks twice a second whether the display is there, until the core stops the watch.
    func watchForDisplay() -> Task<Void, Never> {
        let shell = self
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                guard !Task.isCancelled else { return }
                shell.feed.yield(.displayChecked(await shell.presence()))
            }
        }
    }

    /// The backend's output changes, as inputs (in kiosk mode only: on a shared desktop nothing is
    /// turned back, and the helper-program backends would start a process a second for nothing).
    func watchOutputs() -> Task<Void, Never> {
        let (display, feed) = (display, feed)
        return Task {
            for await _ in await display.changes() { feed.yield(.outputsChanged) }
        }
    }

    /// A PNG of what the screen shows: mpv's window with the overlays where its video output can
    /// take one; else the compositor's screen where one can be taken (grim, on sway and wlroots
    /// compositors); else the current video frame, which mpv takes with no window at all.
    func screenshot() async -> ControlReply {
        // In the runtime directory, as everything Upright writes unasked (a read-only root).
        let directory = uprightRuntimeDirectory(environment)
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/screenshot-\(getpid())-\(UUID().uuidString.prefix(8)).png"
        defer { unlink(path) }
        var source: String?
        if (try? await player.screenshot(to: path, window: true)) != nil {
            source = "mpv's window"
        } else if let grim = await compositorScreenshot(to: path) {
            source = grim
        } else if (try? await player.screenshot(to: path, window: false)) != nil {
            source = "the video frame"
        }
        guard let source, let png = FileManager.default.contents(atPath: path), !png.isEmpty else {
            return .refused("no screenshot could be taken: mpv has no frame yet and the compositor offers none")
        }
        var reply = ControlReply(ok: true)
        reply.screenshot = Screenshot(png: png.base64EncodedString(), source: source)
        return reply
    }

    /// The output's picture by grim, where the compositor offers screencopy (sway, wlroots).
    private func compositorScreenshot(to path: String) async -> String? {
        let status = await display.status
        guard status.backend == .sway || status.backend == .wlroots, let output = status.output else { return nil }
        var extra: [String: String] = [:]
        for key in ["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"] { extra[key] = environment[key] }
        let grim = HelperProgram(name: "grim", environment: extra)
        guard (try? await grim.run(["-o", output, path])) != nil else { return nil }
        return "the compositor's screen (grim, output \(output))"
    }
}

/// The watches the session core starts and stops: one of each at a time, a new one in place of the old.
final class Watches: Sendable {
    private let tasks = Mutex<(display: Task<Void, Never>?, outputs: Task<Void, Never>?)>((nil, nil))

    /// The display's presence watch becomes `task` (`nil`: none).
    func display(_ task: Task<Void, Never>?) {
        tasks.withLock {
            $0.display?.cancel()
            $0.display = task
        }
    }

    /// The outputs' watch becomes `task` (`nil`: none; its compositor went away).
    func outputs(_ task: Task<Void, Never>?) {
        tasks.withLock {
            $0.outputs?.cancel()
            $0.outputs = task
        }
    }

    func stop() {
        display(nil)
        outputs(nil)
    }
}

extension SessionShell {
    /// How mpv's process confined itself, in the log: a warning when a part could not be set.
    func sayConfinement() {
        let mpv = player.mpvHandle
        guard let confined = mpv.confinement, let pid = mpv.processID else { return }
        let line = "mpv's process (pid \(pid)): \(confined)"
        if confined.contains(";") || confined.hasPrefix("not") {
            logger.warning("\(line)")
        } else {
            logger.info("\(line)")
        }
    }
}
