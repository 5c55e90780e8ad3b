import Blocking
import Control
import Foundation
import Glibc
import TestSupport
import Testing

/// MQTT and Home Assistant discovery against a real mosquitto broker on loopback, with
/// mosquitto_sub and mosquitto_pub as the peer.
@Suite("MQTT with a real broker", .serialized)
struct MQTTTests {
    /// A process whose standard output is collected as it comes, on a thread of its own.
    final class Collected: @unchecked Sendable {  // the pipe holds its own lock
        let process = Process()
        private let out = CollectedPipe()

        init(_ path: String, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.standardOutput = out.pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        var text: String { out.text }

        func waitFor(_ check: (String) -> Bool, seconds: Double = 10) async -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if check(text) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return check(text)
        }

        func stop() { process.send(SIGKILL) }
    }

    static func broker(port: Int, directory: String) throws -> Collected {
        let config = directory + "/mosquitto.conf"
        try "listener \(port) 127.0.0.1\nallow_anonymous true\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        return try Collected("/usr/sbin/mosquitto", ["-c", config])
    }

    /// A temporary folder and a broker on a free port of loopback in it, listening.
    static func brokerInFolder(_ prefix: String) async throws -> (dir: String, port: Int, broker: Collected) {
        let dir = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let port = try MetricsTests.freePort()
        let broker = try broker(port: port, directory: dir)
        try await Task.sleep(for: .milliseconds(300))
        return (dir, port, broker)
    }

    static func publish(port: Int, _ topic: String, _ payload: String, retain: Bool = false) throws {
        try mosquittoPub(["-p", String(port), "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
    }

    /// A file's bytes as one message.
    static func publish(port: Int, _ topic: String, file: String) throws {
        try mosquittoPub(["-p", String(port), "-t", topic, "-f", file])
    }

    /// Each line of `lines` as a message of its own, as fast as they go.
    static func publish(port: Int, _ topic: String, lines: String) throws {
        try mosquittoPub(["-p", String(port), "-t", topic, "-l"], input: lines)
    }

    static func mosquittoPub(_ arguments: [String], input: String? = nil) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = arguments
        let pipe = Pipe()
        if input != nil { p.standardInput = pipe }
        try p.run()
        if let input {
            try pipe.fileHandleForWriting.write(contentsOf: Data((input + "\n").utf8))
            try pipe.fileHandleForWriting.close()
        }
        p.waitUntilExit()
    }

    @Test func discoveryStateCommandsAndABrokerThatComesBack() async throws {
        var (dir, port, broker) = try await Self.brokerInFolder("mqtt")
        defer {
            broker.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        let sub = try Collected("/usr/bin/mosquitto_sub", ["-p", String(port), "-t", "#", "-v"])
        defer { sub.stop() }
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [scenes.promo]
        clip = "av://lavfi:color=red:duration=1"
        supported = ["portrait"]
        [mqtt]
        url = "mqtt://127.0.0.1:\(port)"
        device = "kiosk-7"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("mqtt: connected to mqtt://127.0.0.1:\(port)"), "\(play.stderr)")
        let status = try await upright(["ctl", "--socket", socket, "status"]).stdout
        #expect(status.contains(#""mqtt": "connected to mqtt://127.0.0.1:\#(port) as upright/kiosk-7""#), "\(status)")

        // Discovery: the screen as a device with its entities, retained.
        #expect(
            await sub.waitFor {
                $0.contains("homeassistant/button/upright_kiosk_7/fullscreen/config")
                    && $0.contains("homeassistant/switch/upright_kiosk_7/lock/config")
                    && $0.contains("homeassistant/button/upright_kiosk_7/play_promo/config")
                    && $0.contains("homeassistant/binary_sensor/upright_kiosk_7/health/config")
            }, "\(sub.text)")
        #expect(sub.text.contains(#""device_class":"problem""#), "\(sub.text)")
        #expect(sub.text.contains("upright/kiosk-7/availability online"))
        let retained = try Collected(
            "/usr/bin/mosquitto_sub", ["-p", String(port), "-t", "homeassistant/#", "-v", "-W", "2"])
        defer { retained.stop() }
        #expect(await retained.waitFor({ $0.contains("upright_kiosk_7/rotate_to/config") }, seconds: 3))

        // The full-screen command topic toggles full screen: the decision log says so, and the state follows.
        try Self.publish(port: port, "upright/kiosk-7/command/fullscreen", "PRESS")
        #expect(await play.waitFor("mqtt: fullscreen: {\"ok\": true"), "\(play.stderr)")
        #expect(
            await sub.waitFor {
                $0.contains(
                    #"upright/kiosk-7/state {"device": "unknown", "interface": "landscape-right", "locked": false, "scene": "fullscreen""#
                )
            }, "\(sub.text)")
        #expect(play.stdout.contains(#""cause": "fullscreen""#), "\(play.stdout)")
        // A malformed payload is logged and ignored.
        try Self.publish(port: port, "upright/kiosk-7/command", "rotate-to sideways")
        #expect(await play.waitFor("mqtt: upright/kiosk-7/command 'rotate-to sideways' ignored"), "\(play.stderr)")

        // The broker killed and started again: reconnected, online again, commands work.
        broker.stop()
        #expect(await play.waitFor("mqtt: mqtt://127.0.0.1:\(port):"), "\(play.stderr)")
        let down = try await upright(["ctl", "--socket", socket, "status"]).stdout
        #expect(down.contains("trying again"), "the status says the broker is being retried: \(down)")
        broker = try Self.broker(port: port, directory: dir)
        #expect(
            await play.waitFor({ $0.components(separatedBy: "mqtt: connected").count == 3 }, seconds: 40),
            "\(play.stderr)")
        try Self.publish(port: port, "upright/kiosk-7/command/lock", "ON")
        #expect(await play.waitFor("mqtt: lock: {\"ok\": true"), "\(play.stderr)")
        #expect(play.process.isRunning)
    }

    /// Any client of the broker, as an attacker would be one: a retained command left before the
    /// start is not carried out, a 64 MB payload is dropped before it is copied (the process lives,
    /// its memory grows by less than 24 MB), and a burst of 2,000 garbage commands leaves the
    /// control socket answering within a second.
    @Test func anAbusiveClientOfTheBrokerMovesNothing() async throws {
        let (dir, port, broker) = try await Self.brokerInFolder("mqtt-abuse")
        defer {
            broker.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        try Self.publish(port: port, "upright/kiosk-9/command", "fullscreen", retain: true)
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [mqtt]
        url = "mqtt://127.0.0.1:\(port)"
        device = "kiosk-9"
        discovery = false
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        #expect(
            await play.waitFor("a retained message on upright/kiosk-9/command was not carried out"), "\(play.stderr)")
        let scenes = try await upright(["ctl", "--socket", socket, "status"]).stdout
        #expect(!scenes.contains("\"fullscreen\""), "\(scenes)")

        let pid = play.process.processIdentifier
        let before = Self.residentMB(pid)
        let big = dir + "/big"
        _ = FileManager.default.createFile(atPath: big, contents: Data(count: 64 << 20))
        try Self.publish(port: port, "upright/kiosk-9/command", file: big)
        try FileManager.default.removeItem(atPath: big)
        #expect(await play.waitFor("messages dropped so far"), "\(play.stderr)")
        try await Task.sleep(for: .seconds(1))
        #expect(play.process.isRunning)
        let grown = Self.residentMB(pid) - before
        #expect(grown < 24, "resident memory grew by \(grown) MB")
        print("a 64 MB payload: resident memory \(before) MB, then +\(grown) MB")

        let garbage = (0..<2000).map { "garbage \($0) \(String(repeating: "x", count: $0 % 97))" }.joined(
            separator: "\n")
        try Self.publish(port: port, "upright/kiosk-9/command", lines: garbage)
        // Asked on the socket itself: the answer's time, not a client process's start on a loaded
        // machine (`upright ctl` is a large binary to load).
        let asked = Date()
        let status = try await ControlClient.send(#"{"command": "status"}"#, to: socket)
        let took = Date().timeIntervalSince(asked)
        #expect(status.contains("\"device\"") && took < 1, "\(took) s: \(status.prefix(200))")
        print("2,000 garbage commands: the control socket's status answered in \(Int(took * 1000)) ms")
        #expect(play.process.isRunning)
    }

    /// Resident memory of process `pid`, in MB.
    static func residentMB(_ pid: Int32) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }

    /// What a real Home Assistant showed: a device name with a dot gave no entity, a long path
    /// left "Playing" unknown, a refused command was seen nowhere. Every discovery message is
    /// checked by Home Assistant's rules, its templates rendered by Jinja against the state.
    @Test func homeAssistantTakesEveryEntityOfADottedDeviceWithALongPath() async throws {
        let dir = NSTemporaryDirectory() + "mqtt-ha-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let broker = try Self.broker(port: port, directory: dir)
        defer { broker.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let sub = try Collected("/usr/bin/mosquitto_sub", ["-p", String(port), "-t", "#", "-v"])
        defer { sub.stop() }
        // An item whose name is 300 characters long: a filter graph that changes nothing.
        let item = "av://lavfi:color=c=red:s=64x64:r=10" + String(repeating: ",null", count: 55)
        let pagePort = try MetricsTests.freePort()
        #expect(item.count > 300)
        // A power plan whose window holds this hour (local time), with the screen on now.
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        // The time of day `minutes` after midnight, across midnight either way (-17: 23:43).
        func hhmm(_ minutes: Int) -> String {
            let m = (minutes % 1440 + 1440) % 1440
            return String(format: "%02d:%02d", m / 60, m % 60)
        }
        let minute = Int(local.tm_hour) * 60 + Int(local.tm_min)
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = ["\(item)"]
        [screen]
        on = "\(hhmm(minute - 120))"
        off = "\(hhmm(minute + 120))"
        cec = "off"
        [mqtt]
        url = "mqtt://127.0.0.1:\(port)"
        device = "lobby.1"
        screenshot_interval = 10
        [web]
        listen = "127.0.0.1:\(pagePort)"
        auth = "none"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("mqtt: connected to mqtt://127.0.0.1:\(port)"), "\(play.stderr)")
        // The device links to the operator's page.
        #expect(
            await sub.waitFor { $0.contains(#""configuration_url":"http://127.0.0.1:\#(pagePort)/""#) }, "\(sub.text)")
        // The dot mapped, and the name's hash after it (`lobby_1` is another device).
        #expect(await sub.waitFor { $0.contains("homeassistant/sensor/upright_lobby_1_") }, "\(sub.text)")
        let node = try #require(sub.text.firstMatch(of: /homeassistant\/sensor\/(upright_lobby_1_[0-9a-f]{8})\//)?.1)
        #expect(await sub.waitFor { $0.contains(#""title": "lavfi:color=c=red:s=64x64:r=10,null"#) }, "\(sub.text)")

        // A command that cannot be read, then one the session refuses: both in the state.
        try Self.publish(port: port, "upright/lobby.1/command/rotate-to", "sideways")
        #expect(await sub.waitFor { $0.contains(#""refused": "command/rotate-to 'sideways': "#) }, "\(sub.text)")
        try Self.publish(port: port, "upright/lobby.1/command", "scene-pop")
        #expect(await sub.waitFor { $0.contains(#""refused": "scene-pop: "#) }, "\(sub.text)")
        // The power plan as a switch: set aside, then followed again.
        #expect(await sub.waitFor { $0.contains("homeassistant/switch/\(node)/power_plan/config") }, "\(sub.text)")
        try Self.publish(port: port, "upright/lobby.1/command/power-plan", "OFF")
        #expect(await sub.waitFor { $0.contains(#""power_plan": false"#) }, "\(sub.text)")
        try Self.publish(port: port, "upright/lobby.1/command/power-plan", "ON")
        #expect(await play.waitFor("mqtt: power-plan on: {\"ok\": true"), "\(play.stderr)")
        // The screen's picture, for the image entity.
        #expect(await sub.waitFor({ $0.contains("upright/lobby.1/screenshot \u{FFFD}PNG") }, seconds: 15))

        let messages = dir + "/messages"
        try sub.text.write(toFile: messages, atomically: true, encoding: .utf8)
        let check = try await Blocking.run { () throws -> Run in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [fixture("ha_discovery_check.py"), messages, "upright/lobby.1/state"]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let o = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: "")
        }
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("sensor \(node)/playing: lavfi:color=c=red"), "\(check.stdout)")
        #expect(check.stdout.contains("sensor \(node)/refused: scene-pop: "), "\(check.stdout)")
        #expect(check.stdout.contains("image \(node)/screenshot"), "\(check.stdout)")
        // The board's entities: a temperature (none in a machine without thermal zones), and its
        // problems with the kernel's storage errors.
        #expect(check.stdout.contains("sensor \(node)/temperature: "), "\(check.stdout)")
        #expect(check.stdout.contains("binary_sensor \(node)/hardware: "), "\(check.stdout)")
        // The kiosk's entities: the volume, mute, a toast, when it started, the cache's room, the
        // brightness.
        for entity in [
            "number \(node)/volume: ", "switch \(node)/mute: OFF", "text \(node)/toast: ", "sensor \(node)/started: 20",
            "sensor \(node)/cache_free: ", "number \(node)/brightness: ", "update \(node)/update: {",
        ] {
            #expect(check.stdout.contains(entity), "\(entity)\n\(check.stdout)")
        }
    }

    @Test func mqttsWithTheBrokersCertificateAuthority() async throws {
        let dir = NSTemporaryDirectory() + "mqtts-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A certificate authority and the broker's certificate for 127.0.0.1, made by openssl.
        // umask: another test of this process may narrow it for a moment; the broker runs as
        // the user mosquitto and must read these files.
        let script = """
            umask 022 && cd '\(dir)' && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 \\
              -subj '/CN=Upright test CA' && openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr \\
              -subj '/CN=127.0.0.1' && printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf && openssl x509 -req \\
              -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 -extfile ext.cnf \\
              && chmod 644 server.key server.crt ca.crt && chmod 755 .
            """
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/bin/sh")
        openssl.arguments = ["-c", script]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        await Blocking.run { openssl.waitUntilExit() }
        #expect(openssl.terminationStatus == 0)
        let port = try MetricsTests.freePort()
        try """
        listener \(port) 127.0.0.1
        allow_anonymous true
        cafile \(dir)/ca.crt
        certfile \(dir)/server.crt
        keyfile \(dir)/server.key
        """.write(toFile: dir + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let broker = try Collected("/usr/sbin/mosquitto", ["-c", dir + "/mosquitto.conf"])
        defer { broker.stop() }
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [mqtt]
        url = "mqtts://127.0.0.1:\(port)"
        ca_file = "\(dir)/ca.crt"
        device = "tls-1"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("mqtt: connected to mqtts://127.0.0.1:\(port)", seconds: 30), "\(play.stderr)")
    }
}
