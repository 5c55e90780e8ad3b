import Foundation
import Glibc
import UnixSocket

/// Whether there is something to show the video on, from the environment a process was started
/// with: the compositor or X server it names, or, with none named, a DRM device for mpv's console
/// output.
public enum DisplayPresence: Sendable, Hashable {
    /// The named compositor or X server answers, or the video needs none.
    case present
    /// A compositor or X server is named but does not answer yet (started before it): why.
    case waiting(String)
    /// Nothing is named and there is no DRM device: nothing can show the video.
    case none(String)

    /// mpv video outputs that need no compositor, X server or console.
    public static let headlessOutputs: Set<String> = ["null", "libmpv", "image", "tct", "caca", "sixel", "kitty"]

    /// What `environment` offers for mpv's video output `videoOutput` (`nil`: mpv's own choice).
    public static func check(environment: [String: String], videoOutput: String?) -> DisplayPresence {
        if let vo = videoOutput?.split(separator: ",").first.map(String.init), headlessOutputs.contains(vo) {
            return .present
        }
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            let path = wayland.hasPrefix("/") ? wayland : "\(runtime)/\(wayland)"
            return socket(path, named: "the Wayland compositor (WAYLAND_DISPLAY=\(wayland))")
        }
        if let x = environment["DISPLAY"], !x.isEmpty {
            // A local display `:N` is the socket /tmp/.X11-unix/XN; a remote one is taken as it is.
            guard x.hasPrefix(":"), let n = x.dropFirst().split(separator: ".").first.flatMap({ Int($0) }) else {
                return .present
            }
            return socket("/tmp/.X11-unix/X\(n)", named: "the X server (DISPLAY=\(x))")
        }
        if let sway = environment["SWAYSOCK"], !sway.isEmpty {
            return socket(sway, named: "sway (SWAYSOCK)")
        }
        if !drmDevices().isEmpty { return .present }  // the console: mpv draws through DRM/KMS
        return .none(
            "no display: no WAYLAND_DISPLAY, DISPLAY or DRM device (/dev/dri/card*) to show the video on")
    }

    /// mpv's video outputs held to the windowing system `environment` names, unless `configured`
    /// (the configuration's and the command line's mpv options) chooses its own. Left to itself,
    /// mpv tries one output after another: under a compositor that has just died it would fall
    /// through to DRM and take the screen from the compositor's next start.
    public static func mpvOutputs(environment: [String: String], configured: Set<String>) -> [(String, String)] {
        guard configured.isDisjoint(with: ["vo", "gpu-context"]) else { return [] }
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            // A compositor that renders in software (no 3D here): the video too, through shared
            // memory, not through Mesa's software OpenGL (which takes every core of a small board).
            if environment["WLR_RENDERER"] == "pixman" { return [("vo", "wlshm")] }
            return [("vo", "gpu,wlshm"), ("gpu-context", "wayland")]
        }
        if let x = environment["DISPLAY"], !x.isEmpty {
            return [("vo", "gpu,xv,x11"), ("gpu-context", "x11egl,x11")]
        }
        return []  // the console: mpv's own choice, DRM
    }

    /// A compositor's socket: present when it accepts a connection.
    private static func socket(_ path: String, named name: String) -> DisplayPresence {
        guard FileManager.default.fileExists(atPath: path) else {
            return .waiting("waiting for \(name): no socket at \(path) yet")
        }
        do throws(UnixSocketError) {
            try UnixSocket.probe(path)
            return .present
        } catch {
            return .waiting("waiting for \(name) at \(path): \(error.description)")
        }
    }

    /// The DRM cards (`/dev/dri/card*`).
    public static func drmDevices() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).filter { $0.hasPrefix("card") }
            .sorted()
            .map { "/dev/dri/\($0)" }
    }
}
