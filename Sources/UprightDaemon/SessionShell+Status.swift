import Control
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
        if let status = reply.status {
            let health = await health(status)
            reply.status?.health = health
            metrics.health(health.verdict)
            await healthWatch.remember(reply.status)
        }
    }
}
