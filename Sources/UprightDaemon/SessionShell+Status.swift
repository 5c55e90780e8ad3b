import Control
import Display
import Files
import Foundation
import Wire

extension SessionShell {
    /// A status reply completed with what the shell holds: the decoder, the live stream, the
    /// next item, the last gravity, the remote items, the wall's group, the SMIL index and the health.
    func complete(_ reply: inout ControlReply) async {
        reply.status?.decoder = await player.decoder()
        reply.status?.stream = await player.liveStream()
        reply.status?.next = await player.upcoming
        reply.status?.gravity = monitor.gravity.map { [$0.x, $0.y, $0.z].map { ($0 * 1000).rounded() / 1000 } }
        reply.status?.cache = await remote.status()
        reply.status?.sync = await syncReport()
        if var smil = await player.presentationStatus {
            smil.etag = await remote.etag(of: smil.index)
            reply.status?.smil = smil
        }
        reply.status?.hardware = hardware()
        if let sound = await player.soundStatus {
            reply.status?.volume = sound.volume
            reply.status?.muted = sound.muted
        }
        // A backlight's only: a monitor's over DDC/CI takes seconds to answer.
        reply.status?.brightness = await Backlight.find(ddc: false)?.percent()
        reply.status?.started = startedAt.formatted(.iso8601)
        reply.status?.update = await update?.status ?? UpdateStatus(installed: ProgramVersion.text)
        reply.status?.uptime = Self.systemUptime()
        reply.status?.storage = places.sorted { $0.key < $1.key }.compactMap { Self.room($0.key, at: $0.value) }
        if let status = reply.status {
            let health = await health(status)
            reply.status?.health = health
            metrics.health(health.verdict)
            await healthWatch.remember(reply.status)
        }
    }

    /// The system's uptime in seconds (`/proc/uptime`'s first number); `nil` where it cannot be read.
    static func systemUptime() -> Double? {
        let text = readText("/proc/uptime", limit: 128) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) }.map { $0.rounded() }
    }

    /// The free and the whole room of the file system holding `path`, in MB; `nil` where it is not.
    static func room(_ place: String, at path: String) -> StorageRoom? {
        guard let room = FileSystemRoom(at: path) else { return nil }
        let mb = { (bytes: Int64) in (Double(bytes) / 1_048_576).rounded() }
        return StorageRoom(place: place, path: path, freeMB: mb(room.freeBytes), totalMB: mb(room.totalBytes))
    }
}
