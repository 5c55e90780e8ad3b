import Foundation
import Testing

@testable import Health

@Suite struct HardwareTests {
    static func tree(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "health-\(UUID().uuidString)"
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func thePisThrottledWordIsReadAndSaid() throws {
        let root = try Self.tree(["sys/devices/platform/soc/soc:firmware/get_throttled": "0x50005\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let t = try #require(try HardwareReadings.throttling(root: root)?.get())
        #expect(t.problems == ["under-voltage now", "throttled now"])
        #expect(t.now)
        #expect(Throttling(raw: 0x50000).problems == ["under-voltage since boot", "throttled since boot"])
        #expect(!Throttling(raw: 0x50000).now)
        #expect(Throttling(text: "zz") == nil)
        #expect(HardwareReadings.throttling(root: "/nonexistent") == nil)
        let bad = try Self.tree(["sys/devices/platform/soc/soc:firmware/get_throttled": "nope"])
        defer { try? FileManager.default.removeItem(atPath: bad) }
        if case .failure(let why)? = HardwareReadings.throttling(root: bad) {
            #expect(why.description.hasSuffix("get_throttled: 'nope' is not a hexadecimal word"))
        } else {
            Issue.record("a bad word was read")
        }
    }

    /// What the status and the verdict take: the word, each zone, the problems, and of them
    /// what holds now (a fault: `upright health` says it).
    @Test func theReadingsTogetherSayWhatHoldsNow() throws {
        let root = try Self.tree([
            "sys/devices/platform/soc/soc:firmware/get_throttled": "0x40001\n",
            "sys/class/thermal/thermal_zone0/temp": "82000\n", "sys/class/thermal/thermal_zone0/type": "cpu-thermal\n",
            "sys/class/thermal/thermal_zone0/trip_point_0_temp": "85000\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = HardwareReadings.read(root: root)
        #expect(r.throttled == "0x40001")
        #expect(r.zones.map(\.celsius) == [82])
        #expect(r.problems == ["under-voltage now", "throttled since boot", "cpu-thermal at 82 °C (its limit 85 °C)"])
        #expect(r.faults == ["under-voltage now", "cpu-thermal at 82 °C (its limit 85 °C)"])
        var facts = HealthFacts(session: true, now: 0)
        facts.hardware = r.faults
        #expect(HealthRules().verdict(facts) == .unhealthy("the hardware: under-voltage now"))
        #expect(HardwareReadings.read(root: "/nonexistent").problems.isEmpty)
    }

    @Test func thermalZonesAndTheirTripPoints() throws {
        let root = try Self.tree([
            "sys/class/thermal/thermal_zone0/temp": "78500\n", "sys/class/thermal/thermal_zone0/type": "cpu-thermal\n",
            "sys/class/thermal/thermal_zone0/trip_point_0_temp": "110000\n",
            "sys/class/thermal/thermal_zone0/trip_point_1_temp": "80000\n",
            "sys/class/thermal/thermal_zone1/temp": "45000\n", "sys/class/thermal/cooling_device0/type": "fan\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let zones = HardwareReadings.thermalZones(root: root)
        #expect(
            zones == [
                ThermalZone(name: "cpu-thermal", celsius: 78.5, limit: 80),
                ThermalZone(name: "thermal_zone1", celsius: 45, limit: nil),
            ])
        #expect(zones.map(\.isHot) == [true, false])
    }

    @Test(arguments: [
        ("3,1234,5678901,-;mmc0: error -110 whilst initialising SD card", "mmc0"),
        ("3,1235,5678902,-;I/O error, dev mmcblk0, sector 123456 op 0x1:(WRITE) flags 0x800", "mmcblk0"),
        ("3,1236,5678903,-;Buffer I/O error on dev mmcblk0p2, logical block 4096, lost async page write", "mmcblk0p2"),
        ("2,1237,5678904,-;EXT4-fs error (device mmcblk0p2): ext4_find_entry:1455: inode #2", "mmcblk0p2"),
        ("3,1238,5678905,-;mmc1: Timeout waiting for hardware interrupt.", "mmc1"),
        // The block layer names the kind of failure (a medium error: the card's or disk's own).
        ("3,1239,5678906,-;critical medium error, dev sdb, sector 4660 op 0x0:(READ) flags 0x0 phys_seg 1", "sdb"),
        ("3,1240,5678907,-;timeout error, dev mmcblk0, sector 8 op 0x0:(READ) flags 0x80700", "mmcblk0"),
    ])
    func storageErrorsAreFoundInTheKernelLog(record: String, device: String) throws {
        let e = try #require(StorageErrors.parse(record))
        #expect(e.device == device)
        #expect(e.micros > 5_000_000)
    }

    @Test(arguments: [
        "6,1,1,-;mmc0: new high speed SDHC card at address 0001", "garbage", "6,x,y,-;I/O error, dev sda",
        "4,2,3,-;usb 1-1: new high-speed USB device number 2",
    ])
    func otherRecordsAreNoStorageErrors(record: String) {
        #expect(StorageErrors.parse(record) == nil)
    }

    /// The kernel log of a fake tree (`dev/kmsg`, records as the kernel writes them): the storage
    /// errors among its records, a dictionary line skipped, and what was added since the last read.
    @Test func theKernelLogsStorageErrorsAsTheyCome() throws {
        let root = try Self.tree([
            "dev/kmsg": """
            6,100,1000000,-;usb 1-1: new high-speed USB device number 2
            3,101,2000000,-;mmc0: error -110 whilst initialising SD card
             SUBSYSTEM=mmc
            3,102,3000000,-;blk_update_request: I/O error, dev mmcblk0, sector 1234 op 0x1:(WRITE)

            """
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let log = KernelLog(root: root)
        var r = log.read()
        #expect(r.problem == nil && r.count == 2)
        #expect(r.errors.map(\.device) == ["mmc0", "mmcblk0"])
        let more = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/dev/kmsg"))
        more.seekToEndOfFile()
        more.write(Data("3,103,4000000,-;EXT4-fs error (device mmcblk0p2): ext4_find_entry:1463: comm upright\n".utf8))
        try more.close()
        r = log.read()
        #expect(r.count == 3 && r.errors.last?.device == "mmcblk0p2")
        #expect(log.read().count == 3, "nothing new: nothing counted twice")
        // No kernel log there (a container, a service with ProtectKernelLogs=): the journal's
        // kernel records instead, counted once each; nothing to say without one.
        #expect(KernelLog(root: "/nonexistent").read().problem == nil)
        let journaled = KernelLog(root: "/nonexistent")
        let records: KernelLog.Journal = { ([(2_000_000, "mmc0: error -110 whilst initialising SD card")], nil) }
        #expect(journaled.read(journal: records).errors.map(\.device) == ["mmc0"])
        #expect(journaled.read(journal: { ([], "the system journal cannot be read") }).problem != nil)
        #expect(journaled.read(journal: { ([], nil) }).count == 1)
    }

    /// Storage errors are faults for 10 minutes (the kernel's clock, explicit here), then history.
    @Test func aStorageErrorIsAFaultForTenMinutes() throws {
        let e = try #require(StorageErrors.parse("3,1,60000000,-;mmc0: error -110 whilst initialising SD card"))
        #expect(StorageErrors.recent([e], now: 90_000_000) == ["a storage error on mmc0 30 s ago: \(e.message)"])
        #expect(StorageErrors.recent([e], now: 660_000_000).count == 1)
        #expect(StorageErrors.recent([e], now: 660_000_001).isEmpty)
        #expect(StorageErrors.recent([e], now: 1).isEmpty, "a record from the future: another boot's")
        var facts = HealthFacts(session: true, now: 0)
        facts.hardware = StorageErrors.recent([e], now: 90_000_000)
        #expect(
            HealthRules().verdict(facts) == .unhealthy("the hardware: a storage error on mmc0 30 s ago: \(e.message)"))
    }
}
