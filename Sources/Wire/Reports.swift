/// mpv's video decoder for the item playing, and the frames dropped since the item started.
public struct DecoderReport: Codable, Sendable, Hashable {
    /// The hardware decoder in use (mpv's `hwdec-current`), or `software`.
    public var hwdec: String
    /// The video's codec, as mpv names it (`h264`, `hevc`, `png`, …).
    public var codec: String?
    /// Frames the decoder dropped (it fell behind: mpv's `decoder-frame-drop-count`).
    public var decoderDrops: Int
    /// Frames the video output dropped (late for the screen: mpv's `frame-drop-count`).
    public var outputDrops: Int

    public init(hwdec: String, codec: String?, decoderDrops: Int, outputDrops: Int) {
        (self.hwdec, self.codec, self.decoderDrops, self.outputDrops) = (hwdec, codec, decoderDrops, outputDrops)
    }

    enum CodingKeys: String, CodingKey {
        case hwdec, codec
        case decoderDrops = "decoder_drops", outputDrops = "output_drops"
    }
}

/// A live stream playing, as the status reports it: the latency it is held at (`nil`: none asked,
/// as little as mpv can), what mpv holds of it ahead of its position, and the speed now.
public struct LiveStreamReport: Codable, Sendable, Hashable {
    public var url: String
    public var latency: Double?
    public var buffered: Double?
    public var speed: Double

    public init(url: String, latency: Double?, buffered: Double?, speed: Double) {
        (self.url, self.latency, self.buffered, self.speed) = (url, latency, buffered, speed)
    }
}
