import CMPV
import Dispatch
import Foundation
import Synchronization

/// What a zone drawn over the video shows: a picture (mpv reads and scales it, with `options`
/// such as `keepaspect`, `panscan`, `video-unscaled`, `background`) or a colour (`#rrggbb`).
public enum ZoneSource: Sendable, Hashable {
    case picture(path: String, options: [String: String])
    case color(String)
}

/// A zone drawn over the player's video (mpv's `overlay-add`, id 0…63), in the window's pixels.
public struct ZoneDrawing: Sendable, Hashable {
    public var id: Int
    public var x: Int, y: Int, width: Int, height: Int
    public var source: ZoneSource

    public init(id: Int, x: Int, y: Int, width: Int, height: Int, source: ZoneSource) {
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.source = source
    }

    /// At most a 8192 × 8192 zone, and an id mpv takes.
    var isValid: Bool { (0...63).contains(id) && (1...8192).contains(width) && (1...8192).contains(height) }
}

extension MPVHandle {
    /// `source` as BGRA pixels (alpha 255), `width` × `height`, row after row. A picture is read
    /// by a core of its own (`vo=libmpv`, the software render API) and drawn as mpv draws video:
    /// scaled by `options`, the rest its `background`.
    static func zonePixels(_ z: ZoneDrawing, timeout: Double = 10) throws(MPVError) -> [UInt8] {
        switch z.source {
        case .color(let hex):
            let pixel = colorPixel(hex)
            return [UInt8](unsafeUninitializedCapacity: z.width * z.height * 4) { buffer, count in
                for i in 0..<(z.width * z.height) { for k in 0..<4 { buffer[i * 4 + k] = pixel[k] } }
                count = z.width * z.height * 4
            }
        case .picture(let path, let options):
            // A file's picture at a size is drawn once: a SMIL index shows the same pictures
            // round after round, and each drawing is a core of its own (a tenth of a second
            // and more for a large JPEG: four zones a second held the player up for seconds).
            let key = ZonePictures.key(path, width: z.width, height: z.height, options: options)
            if let key, let pixels = ZonePictures.shared.pixels(key) { return pixels }
            let pixels = try renderPicture(path, width: z.width, height: z.height, options: options, timeout: timeout)
            if let key { ZonePictures.shared.keep(pixels, for: key) }
            return pixels
        }
    }

    static func renderPicture(_ path: String, width: Int, height: Int, options: [String: String], timeout: Double)
        throws(MPVError) -> [UInt8]
    {
        let call = "picture \(path)"
        let fixed = [
            ("vo", "libmpv"), ("pause", "yes"), ("idle", "yes"), ("osd-level", "0"), ("hwdec", "no"),
            ("input-default-bindings", "no"), ("image-display-duration", "inf"),
        ]
        return try withCore(call, options: fixed + options.sorted { $0.key < $1.key }) { h throws(MPVError) in
            let renderer = try SoftwareContext(h, call: call)
            defer { renderer.free() }
            try MPVError.check(withCStrings(["loadfile", path]) { upright_mpv_command(h, $0) }, call)
            // The picture is decoded and its first frame ready to draw.
            try waitEvent(h, call: call, timeout: timeout, ended: "no picture in it") { e in
                e.event_id == MPV_EVENT_PLAYBACK_RESTART ? () : nil
            }
            var pixels = try renderer.render(width: width, height: height, call: call)
            // The software renderer leaves what the picture does not cover black: the zone's
            // background there instead (mpv's margins around the picture it drew).
            if let background = options["background"] {
                let margin = { (side: String) -> Int in
                    var v: Int64 = 0
                    _ = upright_mpv_get_property(h, "osd-dimensions/m" + side, MPV_FORMAT_INT64, &v)
                    return Int(v)
                }
                let picture = (x: margin("l"), y: margin("t"), right: width - margin("r"), bottom: height - margin("b"))
                let pixel = colorPixel(background)
                for y in 0..<height {
                    for x in 0..<width
                    where !(picture.x..<picture.right).contains(x) || !(picture.y..<picture.bottom).contains(y) {
                        let i = (y * width + x) * 4
                        for k in 0..<4 { pixels[i + k] = pixel[k] }
                    }
                }
            }
            return pixels
        }
    }

    /// `#rrggbb` as a BGRA pixel (opaque); black when it cannot be read.
    static func colorPixel(_ hex: String) -> [UInt8] {
        let v = UInt32(hex.dropFirst().suffix(6), radix: 16) ?? 0
        return [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), 255]
    }

    /// A software render context on a core of its own, freed before the core is destroyed.
    final class SoftwareContext {
        var context: OpaquePointer?

        init(_ h: OpaquePointer, call: String) throws(MPVError) {
            var ctx: OpaquePointer?
            let status = MPVSoftwareRenderer.createContext(h, &ctx)
            try MPVError.check(status, "\(call): mpv_render_context_create(sw)")
            context = ctx
        }

        func free() {
            if let context { upright_mpv_render_context_free(context) }
            context = nil
        }

        /// The frame as BGRA (mpv's `bgr0`, the alpha set opaque).
        func render(width: Int, height: Int, call: String) throws(MPVError) -> [UInt8] {
            guard let context else { throw MPVError(call: call, message: "the renderer is closed", code: -1) }
            var pixels = try MPVSoftwareRenderer.draw(context, width: width, height: height, format: "bgr0")
            for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
            return pixels
        }
    }
}

/// The zone pictures drawn last, by file, its change time and size, and the drawing's size and
/// options; the least recently used go first past ``limit`` bytes (a 640 × 360 zone is 0.9 MB).
final class ZonePictures: Sendable {
    static let shared = ZonePictures()
    static let limit = 48 << 20
    private let kept = Mutex<(entries: [String: [UInt8]], order: [String], bytes: Int)>(([:], [], 0))

    /// The key of a file's picture (`nil` for anything else: a URL, a file that is not there).
    static func key(_ path: String, width: Int, height: Int, options: [String: String]) -> String? {
        var info = stat()
        guard path.hasPrefix("/"), stat(path, &info) == 0 else { return nil }
        let changed = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec).\(info.st_size)"
        let drawn = options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return "\(path)|\(changed)|\(width)x\(height)|\(drawn)"
    }

    func pixels(_ key: String) -> [UInt8]? {
        kept.withLock { k in
            guard let pixels = k.entries[key] else { return nil }
            k.order.removeAll { $0 == key }
            k.order.append(key)
            return pixels
        }
    }

    func keep(_ pixels: [UInt8], for key: String) {
        guard pixels.count <= Self.limit / 4 else { return }
        kept.withLock { k in
            if let old = k.entries.updateValue(pixels, forKey: key) {
                k.bytes -= old.count
                k.order.removeAll { $0 == key }
            }
            k.order.append(key)
            k.bytes += pixels.count
            while k.bytes > Self.limit, let oldest = k.order.first {
                k.order.removeFirst()
                k.bytes -= k.entries.removeValue(forKey: oldest)?.count ?? 0
            }
        }
    }
}

extension MPVHandle {
    /// Draws `zone` over the video, in place of what its id showed: its pixels made here (or in
    /// mpv's process), handed to `overlay-add` by address (mpv copies them at once).
    public func draw(_ zone: ZoneDrawing) throws(MPVError) {
        guard zone.isValid else {
            throw MPVError(call: "zone \(zone.id)", message: "a zone is 1…8192 pixels a side, its id 0…63", code: -1)
        }
        if let remote {
            _ = try remote.call(.zone(zone), describing: "zone \(zone.id)")
            return
        }
        try drawHere(zone)
    }

    /// Takes zone `id` off the screen.
    public func clearZone(_ id: Int) throws(MPVError) { try command(["overlay-remove", String(id)]) }

    func drawHere(_ zone: ZoneDrawing) throws(MPVError) {
        let pixels = try Self.zonePixels(zone)
        var failure: MPVError?
        pixels.withUnsafeBytes { bytes in
            let address = "&" + String(UInt(bitPattern: bytes.baseAddress))
            do throws(MPVError) {
                try command([
                    "overlay-add", String(zone.id), String(zone.x), String(zone.y), address, "0", "bgra",
                    String(zone.width), String(zone.height), String(zone.width * 4),
                ])
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
