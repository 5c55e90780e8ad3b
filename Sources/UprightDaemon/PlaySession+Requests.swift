public import Fleet
import Foundation
import Playback
import Session
import Settings
public import Wire

/// The session's answers to what is asked of it: its status, pushed or asked for, a screenshot,
/// a control request line (the socket's and the page's).
extension PlaySession {
    /// The session's state now.
    public func currentStatus() async -> SessionStatus? { await ask { .status(request: $0) }.status }

    /// The session's state now, then as it changes (``StatusFeed``), for as long as it plays.
    public nonisolated func statusUpdates() -> AsyncStream<SessionStatus> { statusFeed.subscribe() }

    /// The same as status reply lines, a URL's secrets masked (the page's events).
    public nonisolated func statusLines() -> AsyncStream<String> {
        let updates = statusUpdates()
        return AsyncStream { continuation in
            let relay = Task {
                for await status in updates {
                    continuation.yield(Redact.text(ControlReply(ok: true, status: status).line))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    /// A PNG of what the screen shows (as `ctl screenshot` takes it), or `nil` when none could be taken.
    public func screenshotPNG() async -> [UInt8]? {
        guard let shot = await ask({ .screenshot(request: $0) }).screenshot,
            let png = Data(base64Encoded: shot.png)
        else { return nil }
        return [UInt8](png)
    }

    /// Answers one control-socket request line with one reply line (JSON); a bad request gets an
    /// error reply and changes nothing.
    /// A URL's secrets (a password, a token) are masked in the reply (``Redact``).
    public func control(_ line: String) async -> String { Redact.text(await reply(to: line).line) }

    /// The same reply as a value (the page encodes it itself, its secrets masked as here).
    public func reply(to line: String) async -> ControlReply {
        switch ControlRequest.parse(line) {
        case .failure(let e): return ControlReply.refused(e.description)
        case .success(.status): return await ask { .status(request: $0) }
        case .success(.screenshot): return await ask { .screenshot(request: $0) }
        case .success(.action(let action)): return await request(action)
        case .success(.touchCheck(let ask)): return await touchCheck(ask)
        case .success(.health): return await health()
        }
    }

    /// The touch check: started, stopped or tapped, and where it stands.
    func touchCheck(_ ask: TouchCheckAsk) async -> ControlReply {
        var reply = ControlReply(ok: true)
        switch ask {
        case .report: break
        case .run(let command): await shell.player.touchCheck(command)
        case .tap(let x, let y):
            do {
                try await shell.player.tap(x: x, y: y)
                reply.message = "tapped at \(x), \(y): mpv judges it in its own time"
            } catch {
                return .refused("the tap did not reach mpv: \(error)")
            }
        }
        reply.touchCheck = await shell.player.touchCheckReport
        if reply.touchCheck == nil, reply.message == nil { reply.message = "no touch check has run" }
        return reply
    }
}

/// Why a session ended because it could not do its job (the process exits non-zero).
public struct SessionFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
}

extension PlaySession: FleetSession {}
