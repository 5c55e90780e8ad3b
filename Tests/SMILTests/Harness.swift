@testable import SMIL

/// A presentation driven with explicit moments, as a shell would drive it, that writes down
/// what each slot showed when. Continuous media ends after its length in ``lengths`` (never
/// when it has none there), told as the shell tells it.
struct Run {
    var p: Presentation
    /// `2021-04-01T00:00:00Z` by default: moments are `base + elapsed`.
    let base: Double
    let offset: Int
    var lengths: [String: Double] = [:]
    /// What showed, in order: time, slot, and the media's `src` (a brush's colour, `-` for a clear).
    var log: [(time: Double, slot: Slot, what: String)] = []
    var effects: [(time: Double, effect: SMILEffect)] = []
    var ends: [(time: Double, node: Int, serial: Int)] = []

    init(_ text: String, base: Double = 1_617_235_200, utcOffset: Int = 0, lengths: [String: Double] = [:]) throws {
        let doc = try SMILDocument.read(Array(text.utf8), file: "test.smil").get()
        self.base = base
        offset = utcOffset
        self.lengths = lengths
        p = Presentation(doc, at: Moment(elapsed: 0, utc: base, utcOffset: utcOffset))
        record(p.start(), at: 0)
    }

    func moment(_ t: Double) -> Moment { Moment(elapsed: t, utc: base + t, utcOffset: offset) }

    mutating func record(_ list: [SMILEffect], at t: Double) {
        for e in list {
            effects.append((t, e))
            switch e {
            case .show(let slot, let shown):
                log.append((t, slot, shown.media.kind == .brush ? shown.media.color ?? "" : shown.media.src))
                if let length = lengths[shown.media.src], shown.media.isContinuous {
                    ends.append((t + length - shown.position, shown.node, shown.serial))
                }
            case .clear(let slot): log.append((t, slot, "-"))
            default: break
            }
        }
    }

    /// Runs to `end`, stopping at each change due and each media end, with `inputs` at their times.
    mutating func run(until end: Double, inputs: [(Double, (Moment) -> SMILInput)] = []) {
        var inputs = inputs.sorted { $0.0 < $1.0 }
        var t = p.now
        while t < end {
            let due = [p.nextChange, ends.map(\.time).min(), inputs.first?.0].compactMap { $0 }.filter { $0 >= t }
            guard let next = due.min(), next <= end else { break }
            t = next
            if let i = ends.firstIndex(where: { $0.time <= t }) {
                let e = ends.remove(at: i)
                record(p.handle(.mediaEnded(node: e.node, serial: e.serial, moment(t))), at: t)
            } else if let first = inputs.first, first.0 <= t {
                inputs.removeFirst()
                record(p.handle(first.1(moment(t))), at: t)
            } else {
                record(p.handle(.tick(moment(t))), at: t)
            }
        }
        record(p.handle(.tick(moment(end))), at: end)
    }

    /// The order things showed in one slot: file names without extension (`0001`), colours,
    /// and `-` for an empty slot.
    func order(_ slot: Slot = .root) -> [String] {
        log.filter { $0.slot == slot }.map { entry in
            let name = entry.what.split(separator: "/").last.map(String.init) ?? entry.what
            return name.split(separator: ".").first.map(String.init) ?? name
        }
    }

    /// The same with each entry's time.
    func timed(_ slot: Slot = .root) -> [String] {
        zip(order(slot), log.filter { $0.slot == slot }).map { "\($0)@\(format($1.time))" }
    }

    func format(_ t: Double) -> String {
        t == t.rounded() ? String(Int(t)) : String(format3(t))
    }

    func format3(_ t: Double) -> String { String((t * 1000).rounded() / 1000) }
}

/// A document with one full-screen region around `body`'s elements.
func smil(_ body: String, head: String = "") -> String {
    """
    <?xml version="1.0" encoding="utf-8"?>
    <smil>
      <head>\(head)
        <layout><root-layout width="1920" height="1080"/></layout>
      </head>
      <body>
    \(body)
      </body>
    </smil>
    """
}

func img(_ name: String, _ attributes: String = "dur=\"1s\"") -> String {
    "<img src=\"\(name).jpg\" \(attributes)/>"
}
