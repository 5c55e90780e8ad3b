import Foundation
import MPV
import Testing

/// Zones drawn over the video: a colour, and a picture read and scaled by a core of its own.
@Suite struct ZoneDrawingTests {
    /// A picture in PPM: its left half green, its right half blue.
    static func picture(in dir: String) throws -> String {
        let path = dir + "/halves.ppm"
        var bytes = Array("P6\n4 2\n255\n".utf8)
        for _ in 0..<2 { bytes += [0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255] }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aColourAndAPictureShowOverTheVideoAtTheirPlaces() throws {
        let dir = NSTemporaryDirectory() + "zones-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mpv = try MPVHandle(
            options: [("vo", "libmpv"), ("ao", "null"), ("terminal", "no")], separateProcess: false)
        let renderer = try MPVSoftwareRenderer(mpv)
        defer { renderer.close() }
        try mpv.command(["loadfile", "av://lavfi:color=c=black:size=640x360:rate=25"])
        try mpv.draw(ZoneDrawing(id: 1, x: 0, y: 0, width: 100, height: 50, source: .color("#ff0000")))
        let halves = ZoneSource.picture(path: try Self.picture(in: dir), options: ["keepaspect": "no"])
        try mpv.draw(ZoneDrawing(id: 2, x: 200, y: 100, width: 200, height: 100, source: halves))
        var seen: [String] = []
        for _ in 0..<100 {
            let f = try renderer.render(width: 640, height: 360)
            seen = [(50, 25), (250, 150), (350, 150), (500, 300)].map { x, y in
                let (r, g, b) = f.rgb(x, y)
                return "\(r > 128 ? "r" : "")\(g > 128 ? "g" : "")\(b > 128 ? "b" : "")"
            }
            if seen == ["r", "g", "b", ""] { break }
            usleep(20_000)
        }
        #expect(seen == ["r", "g", "b", ""])
        try mpv.clearZone(1)
        let f = try renderer.render(width: 640, height: 360)
        #expect(f.rgb(50, 25).r < 30)
    }

    @Test(arguments: [false, true]) func aZoneThatCannotBeDrawnSaysWhy(separateProcess: Bool) throws {
        let mpv = try MPVHandle(
            options: [("vo", "null"), ("ao", "null"), ("idle", "yes"), ("terminal", "no")],
            separateProcess: separateProcess)
        try mpv.draw(ZoneDrawing(id: 3, x: 5, y: 5, width: 10, height: 10, source: .color("#00ff00")))
        #expect(throws: MPVError.self) {
            try mpv.draw(ZoneDrawing(id: 64, x: 0, y: 0, width: 10, height: 10, source: .color("#00ff00")))
        }
        let missing = ZoneSource.picture(path: "/nonexistent/p.png", options: [:])
        do {
            try mpv.draw(ZoneDrawing(id: 4, x: 0, y: 0, width: 10, height: 10, source: missing))
            Issue.record("a missing picture was drawn")
        } catch {
            #expect(error.call == "picture /nonexistent/p.png")
        }
    }
}
