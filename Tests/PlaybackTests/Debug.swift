import OrientationCore
import Playback
import Testing

@Test func debugSeq() {
    let operations = [0, 0, 0, 0, 0, 0, 8, 0, 8, 8, 0, 0, 0, 0, 0, 0, 4, 7, 4, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4]
    var settings = PlayerSettings.folder(splash: "/s.png")
    settings.retryInterval = .seconds(30)
    var d = Drive(settings, files: ["/d/1.png": "1", "/d/2.png": "1", "/d/3.png": "1"])
    var request = 0
    d.send(.start)
    for (n, op) in operations.enumerated() {
        let file = "/d/\(n % 5).png"
        let c0 = d.commands.count, l0 = d.log.count, e0 = d.events.count
        switch op {
        case 0, 1: d.advance(Double(n % 7) * 0.3 + 0.1)
        case 2:
            request += 1
            d.send(.step(n % 2 == 0 ? .next : .previous, request: request))
        case 3:
            d.mpv.disk[file] = "\(n)"
            d.send(.foldersChanged)
        case 4:
            d.mpv.disk[file] = nil
            d.send(.foldersChanged)
        case 5: d.mpv.bad.insert(file)
        case 6:
            d.mpv.bad.remove(file)
            if d.mpv.disk[file] != nil { d.mpv.disk[file] = "\(n)" }
            d.send(.foldersChanged)
        case 7: d.send(.clip("/clip.mp4", position: 1))
        case 8: d.deliver.toggle()
        default: d.deliverOne()
        }
        continue
        print("op", n, op, "t", d.t, "deliver", d.deliver)
        print("  cmds", d.commands.dropFirst(c0).filter { if case .command = $0 { false } else if case .set = $0 { false } else { true } })
        print("  log", d.log.dropFirst(l0).map { "\($0.what) \($0.path)" }, "events", d.events.dropFirst(e0))
        print("  mpv", d.mpv.playlist, "playing", d.mpv.playing as Any, "core", d.core.entries)
    }
    d.deliver = true
    d.deliverAll()
    d.advance(10)
    print(d.trace.filter { !$0.contains("osd-overlay") && !$0.contains("set(") }.joined(separator: "\n"))
    print(d.log.map { "\($0.what) \($0.entry) \($0.path) \($0.stamp ?? "-")" })
    return
    d.deliver = true
    let c0 = d.commands.count, l0 = d.log.count
    d.deliverAll()
    print("final deliver cmds", d.commands.dropFirst(c0).filter { if case .command = $0 { false } else if case .set = $0 { false } else { true } })
    print("  log", d.log.dropFirst(l0).map { "\($0.what) \($0.path)" })
    print("  mpv", d.mpv.playlist, "core", d.core.entries)
    let l1 = d.log.count
    d.advance(10)
    print("  log", d.log.dropFirst(l1).map { "\($0.what) \($0.path)" })
}
