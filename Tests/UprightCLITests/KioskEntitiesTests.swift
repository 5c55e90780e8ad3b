import Foundation
import Glibc
import Picture
import TestSupport
import Testing

/// What Home Assistant's kiosk entities ask, through a real broker to `upright play` under a
/// headless sway: the newest version published, the volume set, the sound muted, the brightness
/// refused with why (no backlight here; `make ha-check` sets one on a fake sysfs), a toast shown on
/// screen and gone after its time (`[screen] toast_seconds`).
@Suite("Kiosk entities", .serialized)
struct KioskEntitiesTests {
    /// Light pixels around the screen's middle, where a toast shows (the picture is dark red).
    static func lightNearTheMiddle(_ socket: String, dir: String) async throws -> Int {
        guard let (png, _) = await RemoteItemsTests.screenshot(socket: socket) else { return -1 }
        try png.write(to: URL(fileURLWithPath: dir + "/shot.png"))
        let picture = try Clips.picture(png: dir + "/shot.png", ppm: dir + "/shot.ppm")
        guard let p = picture else { return -1 }
        var light = 0
        for y in stride(from: p.height * 2 / 5, to: p.height * 3 / 5, by: 2) {
            for x in stride(from: p.width / 4, to: p.width * 3 / 4, by: 2) {
                let c = p.rgb(x, y)
                if c.r > 200, c.g > 200, c.b > 200 { light += 1 }
            }
        }
        return light
    }

    @Test func versionVolumeMuteBrightnessAndAToastFromMQTT() async throws {
        let (dir, port, broker) = try await MQTTTests.brokerInFolder("kiosk-entities")
        defer {
            broker.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        let sub = try MQTTTests.Collected("/usr/bin/mosquitto_sub", ["-p", String(port), "-t", "upright/lobby/state"])
        defer { sub.stop() }
        // The fleet's newest version, served as a file.
        try FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: true)
        try "9.9.9\n".write(toFile: dir + "/www/latest", atomically: true, encoding: .utf8)
        let server = try FileServer(root: dir + "/www")
        defer { server.stop() }
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = ["av://lavfi:color=c=0x400000:s=640x360:r=10"]
        [player.mpv]
        ao = "null"
        [mqtt]
        url = "mqtt://127.0.0.1:\(port)"
        device = "lobby"
        [update]
        source = "\(server.url("latest"))"
        [screen]
        toast_seconds = 8
        """.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        let sway = try HeadlessSway(mode: "1280x720")
        defer { sway.stop() }
        let (play, socket) = try SMILPlayTests.play(dir + "/upright.toml", sway: sway, state: dir + "/state")
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("mqtt: connected to"), "\(play.stderr)")
        #expect(await sub.waitFor { $0.contains(#""latest_version": "9.9.9""#) }, "\(sub.text)\n\(play.stderr)")

        try MQTTTests.publish(port: port, "upright/lobby/command/volume", "35.0")
        #expect(await sub.waitFor { $0.contains(#""volume": 35"#) }, "\(sub.text)")
        try MQTTTests.publish(port: port, "upright/lobby/command/mute", "ON")
        #expect(await sub.waitFor { $0.contains(#""muted": true"#) }, "\(sub.text)")
        // No backlight here, and no ddcutil: refused, with why.
        if !FileManager.default.fileExists(atPath: "/usr/bin/ddcutil"),
            ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/backlight")) ?? []).isEmpty
        {
            try MQTTTests.publish(port: port, "upright/lobby/command/brightness", "50")
            #expect(await sub.waitFor { $0.contains(#""refused": "brightness 50: no brightness to set: "#) })
        }
        try MQTTTests.publish(port: port, "upright/lobby/command/volume", "101")
        #expect(
            await sub.waitFor { $0.contains(#""refused": "command/volume '101': volume needs a number from 0 to 100"#) }
        )

        // No words before; the toast's words on screen, in the state; gone after its 8 s.
        var before = -1
        for _ in 0..<50 where before != 0 {
            before = try await Self.lightNearTheMiddle(socket, dir: dir)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(before == 0)
        try MQTTTests.publish(port: port, "upright/lobby/command/toast", "Back in 5 minutes")
        #expect(await sub.waitFor { $0.contains(#""toast": "Back in 5 minutes""#) }, "\(sub.text)")
        let sent = ContinuousClock.now
        var shown = 0
        for _ in 0..<25 where shown < 50 {
            shown = try await Self.lightNearTheMiddle(socket, dir: dir)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(shown >= 50, "\(shown) light pixels")
        #expect(ContinuousClock.now - sent < .seconds(8), "the toast was seen within its time")
        try await Task.sleep(until: sent + .seconds(8))
        var after = -1
        for _ in 0..<25 where after != 0 {
            after = try await Self.lightNearTheMiddle(socket, dir: dir)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(after == 0, "\(after) light pixels after the toast's time")
        let status = try await RemoteItemsTests.status(socket)
        #expect(status["toast"] == nil && status["volume"] as? Int == 35 && status["muted"] as? Bool == true)
        #expect((status["storage"] as? [[String: Any]])?.first?["place"] as? String == "cache", "\(status)")
        let update = status["update"] as? [String: Any] ?? [:]
        #expect(update["latest"] as? String == "9.9.9" && update["installed"] is String && update["checked"] is String)
    }
}
