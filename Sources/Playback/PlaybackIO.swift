public import OrientationCore
import Sync
public import Wire

/// What mpv tells the player, as the core takes it (copied out of mpv's events by the shell).
public enum MPVInput: Sendable, Hashable {
    /// mpv starts playlist entry `entry`; `path` is its file as mpv names it (the shell reads it
    /// from mpv's playlist, for an entry the core did not add itself).
    case startFile(entry: Int64, path: String?)
    case fileLoaded
    /// The item's first frame is on screen (or it was sought and plays again).
    case playbackRestart
    /// Entry `entry` ended; `error` is mpv's word when it could not be played.
    case endFile(entry: Int64, error: String?)
    /// mpv has nothing to play. `active` is mpv's `idle-active` as the shell read it when the
    /// event came (`nil`: unknown): `false`, a new playlist started since, and the idle event that
    /// lagged behind it says nothing.
    case idle(active: Bool?)
    /// One of the sizes mpv observes changed (it says each dimension on its own): the core puts
    /// them together.
    case dimension(MPVDimension, Int)
    /// The OSD's size changed (the output turned, the window resized, the first frame).
    case osdSize(width: Int, height: Int)
    /// The picture's display size changed, turned by its rotation.
    case videoSize(width: Int, height: Int)
    /// A tap bound to the touch check, at mpv's `mouse-pos` (the window's pixels).
    case touched(x: Double, y: Double)
}

/// A size mpv says one number at a time: the OSD's (`osd-width`, `osd-height`) and the picture's
/// display size and rotation (`video-out-params/dw`, `dh`, `rotate`).
public enum MPVDimension: String, Sendable, Hashable, CaseIterable {
    case osdWidth = "osd-width"
    case osdHeight = "osd-height"
    case videoWidth = "video-out-params/dw"
    case videoHeight = "video-out-params/dh"
    case videoRotate = "video-out-params/rotate"
}

/// How the shell found mpv's window when the core asked (``PlaybackEffect/samplePlacement``):
/// its video output (`nil`: no window yet), mpv's version (`mpv-version`) and whether the window
/// fills its screen (full screen or maximised).
public struct PlacementSample: Sendable, Hashable {
    public var videoOutput: String?
    public var version: String
    public var filling: Bool
    public init(videoOutput: String?, version: String = "", filling: Bool = false) {
        (self.videoOutput, self.version, self.filling) = (videoOutput, version, filling)
    }
}

/// How the shell found mpv's position when the core asked (``PlaybackEffect/samplePosition``).
public struct PositionSample: Sendable, Hashable {
    public var position: Double?
    public var paused: Bool
    public var idle: Bool
    /// A still image shows: its position does not move, and that is no stall.
    public var image: Bool
    /// The video's frame rate as mpv measures it (`nil`: not known yet): a picture may stand
    /// still for a few frames' time before a stream counts as lost.
    public var fps: Double?
    /// The seconds of the stream mpv holds ahead of its position (`demuxer-cache-duration`).
    public var buffered: Double?
    public init(
        position: Double?, paused: Bool = false, idle: Bool = false, image: Bool = false, fps: Double? = nil,
        buffered: Double? = nil
    ) {
        self.buffered = buffered
        (self.position, self.paused, self.idle, self.image, self.fps) = (position, paused, idle, image, fps)
    }
}

/// The playlist's entries as the shell found them on disk (``PlaybackEffect/scan``), with the local
/// time of the look: the core makes the playlist from it.
public struct PlaylistScan: Sendable, Hashable {
    /// One configured entry now.
    public struct Entry: Sendable, Hashable {
        public var entry: String
        /// What it plays now: a folder's ready files, a file or URL as it is, nothing for a missing folder.
        public var items: [Item]
        /// What it is, in words ("x.mp4: no such file or directory").
        public var description: String
        /// A remote list's lines that may not play, each with why (``RemoteItem/refusal(of:allowed:)``).
        public var refused: [Refused]
        public init(entry: String, items: [Item], description: String, refused: [Refused] = []) {
            (self.entry, self.items, self.description, self.refused) = (entry, items, description, refused)
        }
    }

    /// A line of a remote list that never reaches mpv, and why.
    public struct Refused: Sendable, Hashable {
        public var line: String
        public var reason: String
        public init(line: String, reason: String) { (self.line, self.reason) = (line, reason) }
    }

    /// A file or URL, with what changes when its file changes (size and modification time;
    /// empty for a URL, "missing" for a file that is not there).
    public struct Item: Sendable, Hashable {
        public var path: String
        public var stamp: String
        /// The URL a cached file stands for (the status, the log and the proof of play name it).
        public var origin: String?
        public init(_ path: String, stamp: String = "", origin: String? = nil) {
            (self.path, self.stamp, self.origin) = (path, stamp, origin)
        }
    }

    public var entries: [Entry]
    /// A USB stick's media files, while one with media files is there.
    public var stick: [Item]
    /// Seconds until the soonest file still being written has stood still (`nil`: none is).
    public var settlesIn: Double?
    /// The folders to watch for changes: the playlist's folders and missing entries, where sticks appear.
    public var watch: [String]
    /// The local time of the look: weekday (1 Monday … 7 Sunday), minute after midnight, second.
    public var weekday: Int
    public var minute: Int
    public var second: Int

    public init(
        entries: [Entry], stick: [Item] = [], settlesIn: Double? = nil, watch: [String] = [], weekday: Int = 1,
        minute: Int = 0, second: Int = 0
    ) {
        (self.entries, self.stick, self.settlesIn, self.watch) = (entries, stick, settlesIn, watch)
        (self.weekday, self.minute, self.second) = (weekday, minute, second)
    }
}

/// Everything the player's core reacts to. Time comes with each input (``PlaybackCore/handle(_:at:)``).
public enum PlaybackInput: Sendable, Hashable {
    /// Load the playlist (at the start, and when the display came back); the core asks for a scan first.
    case start
    /// A new mpv took over from one that ended on its own: the playlist from the entry that played.
    case restarted
    /// A new configured playlist (a reload): played from its start; the same list changes nothing.
    case setPlaylist([String])
    case mpv(MPVInput)
    /// The answer to ``PlaybackEffect/scan``.
    case scanned(PlaylistScan)
    /// A watched folder changed (a file copied in, removed, a stick mounted).
    case foldersChanged
    /// The answer to ``PlaybackEffect/lookUp(path:entry:error:)``: why the file cannot be read
    /// (`nil`: it can, and mpv's own word stands), and its stamp now (``PlaylistScan/Item/stamp``).
    case lookedUp(path: String, entry: Int64, problem: String?, error: String?, stamp: String)
    /// The answer to ``PlaybackEffect/samplePosition``.
    case sample(PositionSample)
    /// The answer to ``PlaybackEffect/sampleShape``: the picture's shape, `nil` while mpv has none.
    case shapeSample(ContentShape?)
    /// The answer to a `loadfile`: mpv's id of the entry it added (`nil`: mpv refused it).
    case added(entry: Int64?)
    /// mpv refused `command`, or had ended before it could take it.
    case refused(MPVCommand)
    /// The shell could not remove mpv's entry: mpv plays it now.
    case removeRefused(entry: Int64)
    /// The answer to a ``PlaybackEffect/guarded(entry:_:)`` batch: carried out, or not (mpv had moved on).
    case guarded(passed: Bool)
    /// Play `file` once, then go back to the loop where it was (`position`: the loop's position now).
    case clip(String, position: Double?)
    /// Step through the playlist; ``PlaybackEffect/stepped(request:playing:)`` answers `request`.
    case step(PlaylistStep, request: Int)
    /// Show the interface orientation, carried out by `strategy` (and the layout, when given), on
    /// an output that shows `panel` upright meanwhile (the surface strategy turns the picture by
    /// the rest: a landscape panel that cannot turn shows landscape upright unturned).
    case apply(InterfaceOrientation, AppliedStrategy, PlayerLayout?, panel: InterfaceOrientation = .portrait)
    case layout(PlayerLayout)
    /// What the overlays show now.
    case overlays(OverlayContent)
    /// Hidden during a transition, shown again after it.
    case overlaysHidden(Bool)
    /// Pause playback (the screen is off) or resume it.
    case pause(Bool)
    /// Time passed: what is due by now.
    case tick
    /// The answer to ``PlaybackEffect/probe(_:)``: whether the stream's server answers now.
    case probed(String, reachable: Bool)
    /// The server of the stream watched (``PlaybackEffect/watchSource(_:)``) went away.
    case sourceGone(String)
    /// Follow a wall's group (a leader also says its next item ahead: `announces`), or stop (`nil`).
    case follow(announces: Bool?)
    /// The answer to ``PlaybackEffect/sampleGroup``.
    case groupSample(GroupSample)
    /// The answer to ``PlaybackEffect/probeLengths(_:)``: each file's length (`nil`: it has none).
    case lengthsProbed([String: Double?])
    /// The next clip is the group's: it starts at this group time (held at its first frame until then).
    case groupClip(at: Double)
    /// The answer to ``PlaybackEffect/samplePlacement``.
    case placementSample(PlacementSample)
    /// Start or stop the touch check.
    case touchCheck(TouchCheckCommand)
    /// Another shows what plays from now on (a SMIL presentation: mpv's playlist events go to it,
    /// not to the core), or no longer (`false`: the playlist is loaded again).
    case present(Bool)
    /// The sound's volume (0–100), and the sound off or on again: kept for a new mpv too.
    case volume(Int)
    case mute(Bool)
    /// Another placed the picture (a presentation's video region): the window is read for the
    /// nudge an old software output needs, as after the core's own placement.
    case placed
}

/// A step through the playlist.
public enum PlaylistStep: String, Sendable, Hashable {
    case next
    case previous
}

/// A value for an mpv property.
public enum PlaybackValue: Sendable, Hashable {
    case flag(Bool)
    case int(Int64)
    case double(Double)
}

/// One thing mpv is asked to do. Playlist entries are named by mpv's own ids; the shell finds
/// each one's index in mpv's playlist when it carries the command out.
public enum MPVCommand: Sendable, Hashable {
    /// `loadfile PATH replace|append [OPTIONS]`; answered with the new entry's id (``PlaybackInput/added(entry:)``).
    case load(String, append: Bool, options: [String])
    /// `playlist-remove` of the entry, unless mpv plays it now (``PlaybackInput/removeRefused(entry:)``);
    /// `evenIfPlaying` (the splash): mpv then goes on to the next entry, or idles.
    case remove(entry: Int64, evenIfPlaying: Bool = false)
    /// `playlist-move`: the entry goes before `before`.
    case move(entry: Int64, before: Int64)
    /// `playlist-play-index` of the entry.
    case play(entry: Int64)
    /// `playlist-play-index current`: the entry playing is loaded again.
    case reload
    /// `playlist-next force` / `playlist-prev force`.
    case step(PlaylistStep)
    case stop
    /// `seek SECONDS absolute`.
    case seek(Double)
    case set(String, PlaybackValue)
    /// Any other command, its words as mpv takes them (`osd-overlay`, `vf`).
    case command([String])
}

/// What the player's core asks its shell to do, in order.
public enum PlaybackEffect: Sendable, Hashable {
    case mpv(MPVCommand)
    /// The SMIL index `entry` plays in place of the playlist (a new show, in place of the one
    /// before), or none does any more (`nil`: the show ends).
    case present(String?)
    /// Carried out only while mpv's selected and playing entry are both `entry`; else nothing is.
    /// Either way the core hears ``PlaybackInput/guarded(passed:)`` first.
    case guarded(entry: Int64, [MPVCommand])
    case event(PlayerEvent)
    /// Look at the playlist's entries on disk; the answer is ``PlaybackInput/scanned(_:)``.
    case scan
    /// Watch these folders (none: stop watching); changes come as ``PlaybackInput/foldersChanged``.
    case watch([String])
    /// Why `path` could not be played, in the system's words: ``PlaybackInput/lookedUp(path:entry:problem:error:)``.
    case lookUp(path: String, entry: Int64, error: String?)
    /// Read mpv's position: ``PlaybackInput/sample(_:)``.
    case samplePosition
    /// Read the picture's shape: ``PlaybackInput/shapeSample(_:)``.
    case sampleShape
    /// The answer to a step: what plays now.
    case stepped(request: Int, playing: String?)
    /// Whether a lost stream's server answers (a connection to its host and port, quickly given
    /// up): ``PlaybackInput/probed(_:reachable:)``.
    case probe(String)
    /// Watch the server of the live stream playing (`nil`: stop): its going away is
    /// ``PlaybackInput/sourceGone(_:)``, sooner than the stream's picture stops (HLS plays out
    /// what it holds first).
    case watchSource(String?)
    /// Read the group's time and anchor and mpv's position: ``PlaybackInput/groupSample(_:)``.
    case sampleGroup
    /// Read these files' lengths (mpv, showing nothing): ``PlaybackInput/lengthsProbed(_:)``.
    case probeLengths([String])
    /// A leader's word to its group: its next item and when it starts.
    case announce(ScheduleAnchor)
    /// Read mpv's window (the picture was placed anew): ``PlaybackInput/placementSample(_:)``.
    case samplePlacement
}

/// What the player reports.
public enum PlayerEvent: Sendable, Hashable {
    /// A hotkey was pressed in mpv's window: the action bound to it.
    case hotkey(Action)
    /// A tap or click bound to an action (`MBTN_LEFT_DBL` …).
    case tap(Action)
    /// The clip started by ``PlaybackInput/clip(_:position:)`` ended (played through, failed or skipped).
    case clipEnded
    /// The shape of the item playing: its display size, turned by its rotation metadata.
    case shape(ContentShape)
    case playing(String)
    /// A file could not be played; the playlist goes on.
    case fileFailed(String, reason: String)
    /// Nothing left to play: the idle scene shows (said when mpv is idle, and when the core stops
    /// it for want of anything playable; it may come twice for one stop).
    case idle
    /// Playing, but the position stood still for the stall timeout: the item is loaded again.
    case stalled(String)
    /// The player cannot do its job (the stream stalled too often); the process should end.
    case gaveUp(String)
    /// An mpv command failed: the command and mpv's reason. Playback goes on.
    case problem(String)
    /// mpv shut down.
    case shutdown
    /// A SMIL presentation's zone shows another item, or nothing (``ZonePlaying/item`` `nil`).
    case zone(ZonePlaying)
    /// A SMIL index was read and plays (a new version replaced the old), or cannot be.
    case presentation(PresentationStatus)
}
