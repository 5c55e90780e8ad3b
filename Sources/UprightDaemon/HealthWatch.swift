import Blocking
import Foundation
import Health
import MPV
import Player
import Wire

/// The picture on screen, sampled every ``interval`` seconds for `upright health` (as
/// `ctl screenshot` reads it: mpv's window, else its video frame), the last ``kept`` seconds
/// of samples kept. The rules that judge them are ``HealthRules``'; this only samples.
actor HealthWatch {
    static let interval = 2.0
    static let kept = 30.0
    private(set) var samples: [PictureSample] = []
    /// Where the last sample came from.
    private(set) var source: String?
    /// A try under way, since when (a player that does not answer holds it).
    private var trying: Double?
    /// The last status made: health judges it when a new one is late.
    private(set) var lastStatus: SessionStatus?

    func remember(_ status: SessionStatus?) { lastStatus = status }

    /// Samples until cancelled; every fifth sample `judge` (the status is made, and the
    /// verdict with it goes to the metrics, even when nobody asks).
    func run(player: Player, judge: @Sendable () async -> Void) async {
        var count = 0
        while !Task.isCancelled {
            await sample(player)
            count += 1
            if count % 5 == 0 { await judge() }
            try? await Task.sleep(for: .seconds(Self.interval))
        }
    }

    /// Why no picture came lately: a try that has waited longer than two samples' interval
    /// (mpv does not answer); `nil` otherwise.
    func samplingProblem(now: Double) -> String? {
        guard let t = trying, now - t > Self.interval * 2 else { return nil }
        return "mpv has not answered a screenshot for \(Int(now - t)) s"
    }

    private func sample(_ player: Player) async {
        let now = Date().timeIntervalSince1970
        trying = now
        defer { trying = nil }
        // Off the player's actor: an mpv that does not answer holds this try only.
        let handle = player.mpvHandle
        let shot = await Blocking.run { () -> (MPVFrame, String, Double?)? in
            let position = try? handle.get(MPVProperty<Double>.timePosition)
            if let f = try? handle.screenshot("window") { return (f, "mpv's window", position) }
            if let f = try? handle.screenshot("subtitles") { return (f, "the video frame", position) }
            return nil
        }
        guard let (frame, from, position) = shot, frame.width > 0, frame.height > 0 else {
            // mpv answers, and has nothing to sample (no video, and an output that takes no
            // window screenshot): the verdict cannot tell, rather than finding a fault.
            source = "nothing: mpv shows no video, and its output takes no window screenshot"
            return
        }
        let s = PictureSample(
            time: now, rgb0: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride,
            position: position)
        source = from
        samples = samples.filter { $0.time > now - Self.kept } + [s]
    }
}
