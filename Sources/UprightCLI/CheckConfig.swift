import ArgumentParser
import Config
import Files
import Foundation
import Playback
import SMIL

/// `upright check-config [FILE]`: the effective configuration, or every error with its place.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file and print the effective configuration, or its errors.",
        discussion: """
            Without FILE, the configuration Upright would use: $XDG_CONFIG_HOME/upright/upright.toml \
            (~/.config when unset), then /etc/upright/upright.toml, then the built-in defaults. The \
            drop-ins FILE.d/*.toml (/etc/upright/upright.toml.d/*.toml) are merged after it in name \
            order. Exit status 0 when it can be used, 1 when it has errors.
            """)

    @Argument(help: "The configuration file to check.")
    var file: String?

    @Flag(help: "Follow each setting with the file it came from (# default for the built-in ones).")
    var origin = false

    func run() throws {
        let configuration = try locateConfiguration(file)
        print(origin ? configuration.tomlWithOrigins : configuration.toml, terminator: "")
        // What each playlist entry is now: a file, a folder with its media files, missing.
        for entry in configuration.player.playlist {
            let options = configuration.player.itemOptions[entry]
            let what =
                RemoteItem.isIndex(entry)
                ? Self.smil(entry)
                : RemoteItem.isCached(entry, options: options)
                    ? "\(entry): a remote file, played from the cache (\(configuration.cache.resolvedDirectory()))"
                    : RemoteItem.isLive(entry, options: options)
                        ? "\(entry): a stream, played from the network (the slate while it is lost)"
                        : Playlist.inspect(entry).description
            writeStandardError("upright: playlist: \(what)\n")
        }
    }

    /// What a SMIL index entry is: read here when it is a file.
    static func smil(_ entry: String) -> String {
        let plays = "played in place of the playlist's other entries"
        guard let path = Playlist.localPath(entry) else {
            return
                "\(entry): a SMIL index on the network, \(plays), through the cache (upright check-smil reads a copy)"
        }
        guard let data = FileManager.default.contents(atPath: path) else { return Playlist.inspect(entry).description }
        switch SMILDocument.read(Array(data), file: path) {
        case .failure(let refusal): return "\(entry): a SMIL index, refused: \(refusal)"
        case .success(let doc):
            let warnings = doc.diagnostics.count
            return "\(entry): a SMIL index: \(doc.mediaCount) media in \(doc.layout.regions.count) regions, "
                + "\(warnings) warning\(warnings == 1 ? "" : "s") (upright check-smil lists them); \(plays)"
        }
    }
}
