import PropertyBased
import Testing

@testable import SMIL

/// Indexes built at random from the supported elements keep the presentation's promises.
@Suite struct PresentationPropertyTests {
    static let programs = Gen.int(in: 0...99).array(of: 1...60)

    /// An element read off `program` (its numbers taken as they come), and its active duration
    /// as SMIL's timing says, worked out here on its own: a picture's `dur` times its repeats;
    /// a `seq` the sum of its children's offsets and durations, a `par` the latest of its
    /// children's ends, either cut to its own `dur` where one is given, times its repeats.
    struct Builder {
        var program: [Int]
        var next = 0
        var depth = 0

        mutating func take(_ n: Int) -> Int {
            defer { next += 1 }
            return next < program.count ? program[next] % n : 0
        }

        mutating func element() -> (xml: String, duration: Double) {
            let kind = depth >= 3 ? 0 : take(4)
            let repeats = take(5) == 0 ? 2 : 1
            let repeatText = repeats > 1 ? " repeatCount=\"\(repeats)\"" : ""
            if kind <= 1 {
                let d = Double(take(4)) * 0.5
                let region = take(3)
                return (
                    "<img src=\"m\(next).jpg\" dur=\"\(d)s\" region=\"r\(region)\"\(repeatText)/>", d * Double(repeats)
                )
            }
            depth += 1
            defer { depth -= 1 }
            var children: [String] = [], total = 0.0
            for _ in 0..<(1 + take(3)) {
                let offset = Double(take(3))
                let (xml, d) = element()
                let begin = offset > 0 ? " begin=\"\(offset)s\"" : ""
                children.append(
                    xml.hasSuffix("/>")
                        ? xml.replacingFirst("/>", with: "\(begin)/>") : xml.replacingFirst(">", with: "\(begin)>"))
                total = kind == 2 ? total + offset + d : max(total, offset + d)
            }
            var durText = ""
            if take(4) == 0 {
                let cut = Double(take(5))
                durText = " dur=\"\(cut)s\""
                total = cut
            }
            let tag = kind == 2 ? "seq" : "par"
            return ("<\(tag)\(durText)\(repeatText)>\(children.joined())</\(tag)>", total * Double(repeats))
        }
    }

    static let layout = """
        <layout><root-layout width="1920" height="1080"/>
        <region regionName="r0" left="0" top="0" width="960" height="1080"/>
        <region regionName="r1" left="960" top="0" width="960" height="540"/>
        <region regionName="r2" left="960" top="540" width="960" height="540"/></layout>
        """

    @Test func anIndexEndsWhenItsTimingSaysAndItsEffectsAreWhatShows() async {
        await propertyCheck(count: 400, input: Self.programs) { program in
            var builder = Builder(program: program)
            var body = "", total = 0.0
            while builder.next < program.count {
                let (xml, d) = builder.element()
                body += xml
                total += d
            }
            let text = "<smil><head>\(Self.layout)</head><body>\(body)</body></smil>"
            var run = try! Run(text)
            run.run(until: total + 2)
            let restarted = run.effects.first { $0.effect == .restarted }?.time
            #expect(restarted.map { abs($0 - max(total, 1)) < 1e-9 } == true, "\(text): ends at \(total)")
            // Replaying the effects gives what the presentation says shows: one node a slot.
            var slots: [Slot: Shown] = [:]
            for (_, effect) in run.effects {
                switch effect {
                case .show(let slot, let shown): slots[slot] = shown
                case .clear(let slot): slots[slot] = nil
                case .hold(let slot, let held): slots[slot]?.held = held
                default: break
                }
            }
            #expect(slots.mapValues { [$0.node, $0.serial] } == run.p.shown.mapValues { [$0.node, $0.serial] })
        }
    }

    /// With exclusive containers, events and media that ends at random, what shows is always a
    /// media node on (or held) in its own slot, and no input leaves the presentation behind.
    @Test func whatShowsIsAlwaysOnAndInItsSlot() async {
        await propertyCheck(count: 300, input: Self.programs) { program in
            let text = Self.exclusive(program)
            var run = try! Run(text, lengths: ["v.mp4": 1.5])
            var inputs: [(Double, (Moment) -> SMILInput)] = []
            for (i, n) in program.enumerated() where n % 7 == 0 {
                inputs.append((Double(i) * 0.7, { .event(.accesskey(n % 2 == 0 ? "a" : "b"), $0) }))
            }
            run.run(until: 40, inputs: inputs)
            #expect(run.p.now == 40)
            for (slot, shown) in run.p.shown {
                let state = run.p.states[shown.node]
                #expect([.active, .paused, .frozen].contains(state.phase))
                #expect(run.p.slot(of: shown.media) == slot)
            }
        }
    }

    /// An `excl` of peers and classes, built from `program`.
    static func exclusive(_ program: [Int]) -> String {
        var items = ""
        for (i, n) in program.enumerated() {
            let begin = ["0s", "\(n % 5)s", "accesskey(a)", "accesskey(b)+1s", "0s;\(n % 9)s"][n % 5]
            let media =
                n % 3 == 0
                ? "<video src=\"v.mp4\" begin=\"\(begin)\" region=\"r\(n % 3)\"/>"
                : "<img src=\"i\(i).jpg\" begin=\"\(begin)\" dur=\"\(n % 4)s\" region=\"r\(n % 3)\"/>"
            let rules = [
                "peers=\"stop\"", "peers=\"pause\"", "peers=\"defer\" higher=\"stop\"",
                "peers=\"never\" lower=\"never\"",
            ]
            items += "<priorityClass \(rules[n % 4])>\(media)</priorityClass>"
        }
        return "<smil><head>\(layout)</head><body><excl repeatCount=\"2\">\(items)</excl></body></smil>"
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        var s = self
        s.replaceSubrange(r, with: replacement)
        return s
    }
}
