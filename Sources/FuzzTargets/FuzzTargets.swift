import Config
import Display
import Health
import MPV
import Playback
import RemoteCache
import SMIL
import Session
import Sync
import TOML
import Wire

/// The parsers that take bytes from outside, each as a fuzz target: the TOML reader and the
/// configuration read from it (the page's configuration check takes 512 KB of anyone's), a
/// remote list's lines, the wire between `upright` and its mpv process, the control socket's and
/// the page's JSON, a wall's group messages, a monitor's EDID, a SMIL index (read, then played
/// for a minute of its time), the kernel log's records (a USB device's name, or any process that
/// may write `/dev/kmsg`, puts words there) and the fleet's update source's answer (`[update]
/// source`: its first line is the newest version). Each takes any bytes and ends in a value or
/// an error: a crash, a leak or a hang is a finding (`make fuzz`), and what one found is kept as
/// a seed that the tests replay.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case toml, list, wire, json, group, edid, smil, kernel, version

    /// Reads `bytes` with the target's parser.
    public func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .toml:
            _ = try? TOMLTable(parsing: text)
            _ = try? UprightConfiguration.parse(text, file: "fuzz.toml")
        case .list:
            for line in RemoteItem.items(ofList: text, base: "https://cms.example.com/screens/loop.m3u?v=2") {
                _ = RemoteItem.refusal(of: line, allowed: RemoteItem.streamSchemes)
                _ = RemoteItem.isCached(line)
                _ = RemoteItem.isLive(line)
            }
        case .wire:
            _ = MPVWireFuzz.read(bytes)
        case .json:
            _ = StrictJSON.problem(in: text)
        case .group:
            let base = "upright/sync/lobby-wall"
            let topic = base + "/" + (text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "")
            let payload = text.split(separator: "\n", maxSplits: 1).dropFirst().first ?? ""
            if let address = GroupAddress(topic: topic, base: base) { _ = GroupWire.word(address.kind, payload) }
            for kind in GroupAddress.Kind.allCases { _ = GroupWire.word(kind, Substring(text)) }
            _ = Self.seal.open(Substring(text), topic: base + "/wall-a/beat")
        case .smil:
            Self.play(bytes)
        case .kernel:
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                _ = StorageErrors.parse(String(line))
                _ = StorageErrors.parse(text: String(line), micros: 1)
            }
            _ = StorageErrors.recent(
                text.split(separator: "\n").compactMap { StorageErrors.parse(String($0)) }, now: 600_000_000)
        case .version:
            switch LatestVersion.version(text) {
            case .success(let v): precondition(!v.isEmpty && v.count <= 64, "a version of \(v.count) characters")
            case .failure(let why):
                let hidden: Set<Unicode.GeneralCategory> = [.control, .format]
                precondition(
                    !why.description.unicodeScalars.contains { hidden.contains($0.properties.generalCategory) })
            }
        case .edid:
            _ = MonitorIdentity(edid: bytes, pnpName: { $0 == "DEL" ? "Dell Inc." : nil })?.description
            _ = PNPNames.parse(text)
        }
    }

    /// A SMIL index read, then its presentation run for a minute in steps that its own changes,
    /// ends of media and taps on what shows set.
    static func play(_ bytes: [UInt8]) {
        guard case .success(let doc) = SMILDocument.read(bytes, file: "fuzz.smil") else { return }
        let base = 1_617_235_200.0
        var p = Presentation(doc, at: Moment(elapsed: 0, utc: base, utcOffset: 3600))
        _ = p.start()
        var t = 0.0, steps = 0
        while t < 60, steps < 2000 {
            steps += 1
            t = min(max(t + 0.25, p.nextChange ?? 60), 60)
            let m = Moment(elapsed: t, utc: base + t, utcOffset: 3600)
            _ = p.handle(.tick(m))
            for shown in p.shown.values where steps % 3 == 0 {
                _ = p.handle(.mediaEnded(node: shown.node, serial: shown.serial, m))
                _ = p.handle(.activate(node: shown.node, m))
            }
        }
    }

    static let seal = GroupSeal(key: [UInt8](repeating: 7, count: 32))!
}
