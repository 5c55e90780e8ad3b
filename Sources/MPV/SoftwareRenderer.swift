import CMPV
import Foundation

/// A rendered frame: RGB0 pixels, row after row.
public struct MPVFrame: Sendable {
    public var width: Int
    public var height: Int
    public var stride: Int
    public var pixels: [UInt8]

    /// The colour at (x, y), 0…255 per channel.
    public func rgb(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = y * stride + x * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// libmpv's software render API (`MPV_RENDER_API_TYPE_SW`): frames into memory, for headless
/// pixel checks. The player must be created with `vo=libmpv`. Owns the `mpv_render_context`
/// (freed in `deinit`) and keeps the player alive; after `quit` the core waits for the context to
/// be freed before it is destroyed, as render.h requires.
///
/// In mpv 0.35.1 this path aborts on `video-rotate` 90/270 and ignores 180: turn with a filter here.
public final class MPVSoftwareRenderer {
    private var context: OpaquePointer?
    let player: MPVHandle

    /// `mpv_render_context_create` with the `sw` API.
    public init(_ player: MPVHandle) throws(MPVError) {
        self.player = player
        let core = try player.handle
        var ctx: OpaquePointer?
        let status = player.lifetime.alive { Self.createContext(core, &ctx) } ?? -3
        try MPVError.check(status, "mpv_render_context_create(sw)")
        context = ctx!
        player.lifetime.add(1)
    }

    deinit { close() }

    /// `mpv_render_context_create` with the `sw` API on `core` (mpv's status).
    static func createContext(_ core: OpaquePointer, _ ctx: inout OpaquePointer?) -> Int32 {
        "sw".withCString { api in
            var params = [
                mpv_render_param(type: MPV_RENDER_PARAM_API_TYPE, data: UnsafeMutableRawPointer(mutating: api)),
                mpv_render_param(type: MPV_RENDER_PARAM_INVALID, data: nil),
            ]
            return upright_mpv_render_context_create(&ctx, core, &params)
        }
    }

    /// Frees the render context (`mpv_render_context_free`). Call it before asking the player to
    /// quit: freeing it while the core shuts its video output down races inside mpv 0.35.
    public func close() {
        guard let context else { return }
        upright_mpv_render_context_free(context)
        self.context = nil
        player.lifetime.add(-1)
    }

    /// Whether mpv has a frame for the screen now (`mpv_render_context_update` with
    /// `MPV_RENDER_UPDATE_FRAME`). A client presents when it does, as a window shows its last
    /// buffer until the next: rendering at other times shows the context's state between two
    /// presentations (after a format change, no frame at all: black), which no screen shows.
    public func hasNewFrame() -> Bool {
        guard let context else { return false }
        return upright_mpv_render_context_update(context) & UInt64(MPV_RENDER_UPDATE_FRAME.rawValue) != 0
    }

    /// The frame mpv wants on the screen now, rendered at `width` × `height`, when it has a new
    /// one (``hasNewFrame()``); `nil` while the screen keeps the one presented before.
    public func present(width: Int, height: Int) throws(MPVError) -> MPVFrame? {
        hasNewFrame() ? try render(width: width, height: height) : nil
    }

    /// Renders the current frame (and the OSD) at `width` × `height` (`mpv_render_context_render`).
    public func render(width: Int, height: Int) throws(MPVError) -> MPVFrame {
        guard let context else {
            throw MPVError(call: "mpv_render_context_render(sw)", message: "the renderer is closed", code: -1)
        }
        let pixels = try Self.draw(context, width: width, height: height, format: "rgb0")
        return MPVFrame(width: width, height: height, stride: width * 4, pixels: pixels)
    }

    /// One frame of `context` in one of the software API's formats (`rgb0`, `bgr0`, …), rows of
    /// `width` × 4 bytes.
    static func draw(_ context: OpaquePointer, width: Int, height: Int, format: String) throws(MPVError) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * 4 * height)
        var size: [Int32] = [Int32(width), Int32(height)]
        var rowBytes = width * 4
        let status: Int32 = format.withCString { format in
            pixels.withUnsafeMutableBytes { buffer in
                size.withUnsafeMutableBytes { sizeBytes in
                    withUnsafeMutablePointer(to: &rowBytes) { rows in
                        var params = [
                            mpv_render_param(type: MPV_RENDER_PARAM_SW_SIZE, data: sizeBytes.baseAddress),
                            mpv_render_param(
                                type: MPV_RENDER_PARAM_SW_FORMAT, data: UnsafeMutableRawPointer(mutating: format)),
                            mpv_render_param(type: MPV_RENDER_PARAM_SW_STRIDE, data: UnsafeMutableRawPointer(rows)),
                            mpv_render_param(type: MPV_RENDER_PARAM_SW_POINTER, data: buffer.baseAddress),
                            mpv_render_param(type: MPV_RENDER_PARAM_INVALID, data: nil),
                        ]
                        return upright_mpv_render_context_render(context, &params)
                    }
                }
            }
        }
        try MPVError.check(status, "mpv_render_context_render(sw, \(width)x\(height))")
        return pixels
    }
}
