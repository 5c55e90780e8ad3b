import Playback
import Session

/// The session shell's effects on the player.
extension SessionShell {
    /// Carries a player effect out; returns why the session must end, if mpv cannot start again.
    func perform(_ effect: PlayerEffect) async -> String?? {
        switch effect {
        case .apply(let interface, let strategy, let layout, let panel):
            await player.apply(interface, strategy: strategy, layout: layout, panel: panel)
        case .layout(let layout): await player.setLayout(layout)
        case .overlay(.hidden(let hidden)): await player.setOverlaysHidden(hidden)
        case .pause(let paused): await player.setPaused(paused)
        case .playClip(let file):
            proofOfPlay?.leave()
            await player.playClip(file)
        case .start: await player.start()
        case .leaveAlone: await player.leaveAlone()
        case .restart:
            metrics.restarted()
            do {
                try await player.restart()
                sayConfinement()
            } catch { return .some("mpv could not start again: \(error)") }
        case .volume(let v): await player.setVolume(v)
        case .mute(let on): await player.setMute(on)
        case .playlist(let list):
            proofOfPlay?.leave()
            await remote.setPlaylist(list)
            await player.setPlaylist(list)
        case .overlay(let change):
            await player.updateOverlays { content in
                switch change {
                case .locked(let on): content.locked = on
                case .suggestion(let s): content.suggestion = s
                case .title(let t): content.title = t
                case .clock(let c): content.clock = c
                case .message(let m): content.message = m
                case .hidden: break
                }
            }
        }
        return nil
    }
}
