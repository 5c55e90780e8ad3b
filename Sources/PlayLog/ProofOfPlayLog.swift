public import Config
import Foundation
public import Logging
import OrientationCore
import Session
import Settings
import Synchronization
import Wire

/// The proof-of-play log: ``ProofOfPlay``'s records as JSON lines, appended to `[proof_of_play]
/// file`, which becomes `FILE.1` (the older ones `FILE.2` … up to `keep`) when it would pass
/// `max_mb`. A file that cannot be written is logged (once until it can be again) and playback
/// goes on; the records of that time are lost, nothing else.
public final class ProofOfPlayLog: Sendable {
    private let settings: ProofOfPlaySettings
    private let path: String
    private let logger: Logger
    private struct State {
        var plays = ProofOfPlay()
        var failing = false
    }
    private let state = Mutex(State())

    /// `nil` when the settings name no file.
    public init?(settings: ProofOfPlaySettings, logger: Logger) {
        guard let path = settings.file else { return nil }
        (self.settings, self.path, self.logger) = (settings, path, logger)
    }

    public func playing(_ item: String) { record { $0.playing(item, at: $1) } }
    public func failed(_ item: String, reason: String) { record { $0.failed(item, reason: reason, at: $1) } }
    public func stalled() { record { $0.stalled(at: $1) } }
    public func idle() { record { $0.idle(at: $1) } }
    public func stopped() { record { $0.stopped(at: $1) } }
    public func zone(_ region: String, shows item: String?, id: String?) {
        record { $0.zone(region, shows: item, id: id, at: $1) }
    }
    public func leave() { state.withLock { $0.plays.leave(at: Date().timeIntervalSince1970) } }

    /// One line as written.
    struct Line: Encodable {
        var item: String
        var start: String
        var end: String
        var seconds: Double
        var outcome: String
        var reason: String?
        var region: String?
        var id: String?
    }

    /// `2026-11-26T09:39:44.695Z`: UTC, milliseconds.
    private static let time: Date.ISO8601FormatStyle = .iso8601.year().month().day().timeZone(separator: .omitted)
        .time(includingFractionalSeconds: true)

    private func record(_ change: (inout ProofOfPlay, Double) -> [ProofOfPlay.Record]) {
        state.withLock { s in
            let records = change(&s.plays, Date().timeIntervalSince1970)
            guard !records.isEmpty else { return }
            let text = records.map { r in
                JSONLine.encode(
                    Line(
                        item: Redact.url(r.item), start: Date(timeIntervalSince1970: r.start).formatted(Self.time),
                        end: Date(timeIntervalSince1970: r.end).formatted(Self.time), seconds: r.seconds,
                        outcome: r.outcome.rawValue, reason: r.reason.map(Redact.text), region: r.region, id: r.id))
                    + "\n"
            }.joined()
            let failure = append(Array(text.utf8))
            if let failure, !s.failing {
                logger.warning("proof of play: cannot write \(path): \(failure); playback goes on")
            } else if failure == nil, s.failing {
                logger.notice("proof of play: \(path) is written again")
            }
            s.failing = failure != nil
        }
    }

    /// Appends `bytes`, rotating first when the file would pass its size; the reason it failed.
    private func append(_ bytes: [UInt8]) -> String? {
        var info = stat()
        if stat(path, &info) == 0, Double(Int(info.st_size) + bytes.count) > settings.maxMB * 1_000_000 {
            rotate()
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        let file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try file.write(contentsOf: bytes)
        } catch {
            return "\(error.localizedDescription)"
        }
        return nil
    }

    /// FILE.(keep-1) → FILE.keep … FILE → FILE.1; with `keep` 0 the file starts again empty.
    private func rotate() {
        guard settings.keep > 0 else {
            unlink(path)
            return
        }
        unlink("\(path).\(settings.keep)")
        for n in stride(from: settings.keep - 1, through: 1, by: -1) { rename("\(path).\(n)", "\(path).\(n + 1)") }
        rename(path, "\(path).1")
    }
}
