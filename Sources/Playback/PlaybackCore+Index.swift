/// A playlist with a SMIL index (``RemoteItem/isIndex``) plays its first index in place of its
/// other entries: another shows it (``PlaybackEffect/present(_:)``) while the core presents
/// (``present(_:at:)``); a new list with another index replaces the show, one without any plays as
/// a list again. And the sound as asked, for each mpv.
extension PlaybackCore {
    /// The index the playlist names, if it names one.
    var playlistIndex: String? { settings.playlist.first(where: RemoteItem.isIndex) }

    /// The playlist from its start: its index shown, a new show each time, else the list itself.
    mutating func startList(at now: Double) -> [PlaybackEffect] {
        guard let playlistIndex else { return start(at: now) }
        index = playlistIndex
        return present(true, at: now) + [.present(playlistIndex)]
    }

    /// A new configured playlist (a reload) played from its start; one that names the index
    /// already shown changes nothing of the show.
    mutating func listChanged(at now: Double) -> [PlaybackEffect] {
        let out = start(at: now)
        guard playlistIndex != index else { return out }
        index = playlistIndex
        if let index { return out + present(true, at: now) + [.present(index)] }
        return out + [.present(nil)] + present(false, at: now)
    }

    /// mpv's volume and mute as asked (none: mpv's own, as the settings have them).
    func sound() -> [PlaybackEffect] {
        [volume.map { .mpv(.set("volume", .double(Double($0)))) }, muted.map { .mpv(.set("mute", .flag($0))) }]
            .compactMap { $0 }
    }
}
