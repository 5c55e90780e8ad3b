import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// `[metrics]` through `upright play`: the textfile read by a real prometheus-node-exporter on
/// loopback, and the HTTP endpoint.
@Suite("Prometheus metrics", .serialized)
struct MetricsTests {
    /// A TCP port free on loopback now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `curl -s URL`'s output, off the cooperative pool.
    static func fetch(_ url: String) async -> String {
        (try? await Blocking.run { () throws -> String in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            p.arguments = ["-s", "-w", "\\n%{http_code}", "--max-time", "3", url]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }) ?? ""
    }

    @Test func nodeExporterServesTheTextfileAndTheEndpointAnswersOnLoopback() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (exporterPort, uprightPort) = (try Self.freePort(), try Self.freePort())
        let exporter = Process()
        exporter.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus-node-exporter")
        exporter.arguments = [
            "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(dir)",
            "--web.listen-address=127.0.0.1:\(exporterPort)",
        ]
        exporter.standardError = FileHandle.nullDevice
        try exporter.run()
        defer { exporter.send(SIGKILL) }
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [scenes.inline]
        supported = ["portrait", "landscape-right", "landscape-left"]
        autorotate = true
        [metrics]
        textfile = "\(dir)/upright.prom"
        listen = ":\(uprightPort)"
        interval = 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let play = try SignalTests.Play(
            ["--config", config, "--uri", "replay:\(fixture("rotate.csv"))", "--vo", "null", "--no-control"])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("metrics: http://127.0.0.1:\(uprightPort)/metrics"), "\(play.stderr)")

        // The device turns 1.5 s in; node-exporter then serves the turn from the textfile.
        var scraped = ""
        for _ in 0..<60 where !scraped.contains(#"upright_turns_total{cause="device",strategy="surface"} 1"#) {
            try await Task.sleep(for: .milliseconds(200))
            scraped = await Self.fetch("http://127.0.0.1:\(exporterPort)/metrics")
        }
        #expect(scraped.contains(#"upright_turns_total{cause="device",strategy="surface"} 1"#), "\(scraped)")
        #expect(scraped.contains(#"upright_device_orientation{orientation="landscape-left"} 1"#))
        #expect(scraped.contains(#"upright_interface_orientation{orientation="landscape-right"} 1"#))
        #expect(scraped.contains("upright_transition_seconds_count 1"))
        #expect(scraped.contains(#"node_textfile_scrape_error 0"#), "node-exporter read the file whole")
        // No file path or title unless `[metrics] items`.
        #expect(!scraped.contains("upright_playing_info") && !scraped.contains("lavfi"))
        // mpv's decoder and the frames dropped for the item playing, sampled every 5 s.
        for _ in 0..<60 where !scraped.contains(#"upright_decoder_info{hwdec="software"} 1"#) {
            try await Task.sleep(for: .milliseconds(200))
            scraped = await Self.fetch("http://127.0.0.1:\(exporterPort)/metrics")
        }
        #expect(scraped.contains(#"upright_decoder_info{hwdec="software"} 1"#), "\(scraped)")
        #expect(scraped.contains(#"upright_frames_dropped{by="decoder"} "#), "\(scraped)")
        #expect(scraped.contains(#"upright_frames_dropped{by="output"} "#), "\(scraped)")

        let served = await Self.fetch("http://127.0.0.1:\(uprightPort)/metrics")
        #expect(served.hasSuffix("\n200") && served.contains("# TYPE upright_turns_total counter"), "\(served)")
        #expect(await Self.fetch("http://127.0.0.1:\(uprightPort)/").hasSuffix("\n404"))
    }

    @Test func anAddressInUseIsSaidAndPlaybackGoesOn() async throws {
        let port = try Self.freePort()
        // Something else holds the port.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        listen(holder, 1)
        let config = try temporaryFile("[lock]\nevdev = \"none\"\n[metrics]\nlisten = \"127.0.0.1:\(port)\"\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { play.process.send(SIGKILL) }
        #expect(
            await play.waitFor("metrics: cannot listen on 127.0.0.1:\(port):"), "\(play.stderr)")
        #expect(await play.waitFor("playing av://lavfi"), "\(play.stderr)")
        #expect(play.process.isRunning)
    }
}
