import Foundation
import Testing

@testable import Input

@Suite("Input records and Linux key names")
struct InputRecordTests {
    @Test func recordsRoundTripAndPartialRecordsAreLeft() {
        let records = [
            InputRecord.key(87, 1), .syn, InputRecord.lockSwitch(true), InputRecord(type: 1, code: 0x231, value: 1),
        ]
        let bytes = records.flatMap(\.bytes) + [1, 2, 3]
        #expect(InputRecord.decode(bytes) == records)
        #expect(records.map(\.lockEvent) == [nil, nil, .set(true), .toggle])
        #expect(InputRecord(type: 1, code: 0x231, value: 0).lockEvent == nil, "a release is not a toggle")
    }

    @Test func theTableIsTheKernelHeader() throws {
        // The committed table against the header of this machine (linux-libc-dev).
        let header = try String(contentsOfFile: "/usr/include/linux/input-event-codes.h", encoding: .utf8)
        var checked = 0
        for line in header.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 3, parts[0] == "#define", parts[1].hasPrefix("KEY_") || parts[1].hasPrefix("BTN_"),
                let code = parts[2].hasPrefix("0x") ? UInt16(parts[2].dropFirst(2), radix: 16) : UInt16(parts[2])
            else { continue }
            if ["KEY_MAX", "KEY_CNT", "KEY_RESERVED"].contains(String(parts[1])) { continue }
            #expect(LinuxKeys.code(of: String(parts[1])) == code, "\(parts[1])")
            checked += 1
        }
        #expect(checked > 500)
        #expect(LinuxKeys.code(of: "KEY_F11") == 87 && LinuxKeys.code(of: "BTN_0") == 0x100)
        #expect(LinuxKeys.name(of: 87) == "KEY_F11")
    }

    @Test func anUnknownNameSaysWhatIsNear() {
        #expect(LinuxKeys.problem(with: "KEY_F11") == nil)
        let p = LinuxKeys.problem(with: "KEY_F1l") ?? ""
        #expect(p.hasPrefix("Linux has no key named 'KEY_F1l'; did you mean KEY_F1"), "\(p)")
        #expect(LinuxKeys.isLinuxName("KEY_OK") && LinuxKeys.isLinuxName("BTN_0") && !LinuxKeys.isLinuxName("key_ok"))
    }
}

/// The hub on FIFOs carrying the real `input_event` layout (this machine has no `/dev/input`).
@Suite("The input hub", .serialized)
struct InputHubTests {
    final class Fifo: Sendable {
        let directory: String
        let path: String

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            path = directory + "/event0"
            try Self.make(path)
        }

        static func make(_ path: String) throws {
            guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        /// Writes `bytes` as a writer that opens, writes and closes (blocks until a reader is there).
        func write(_ bytes: [UInt8], path: String? = nil) async {
            let target = path ?? self.path
            await Task.detached {
                let fd = open(target, O_WRONLY)
                guard fd >= 0 else { return }
                _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }.value
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The hub's events until `condition` holds for them, or 5 s.
    static func collect(_ hub: InputHub, until condition: @escaping @Sendable ([InputHubEvent]) -> Bool) async
        -> [InputHubEvent]
    {
        let task = Task {
            var seen: [InputHubEvent] = []
            for await e in hub.events {
                seen.append(e)
                if condition(seen) { break }
            }
            return seen
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(5))
            task.cancel()
        }
        defer { timeout.cancel() }
        return await task.value
    }

    static func presses(_ events: [InputHubEvent]) -> [UInt16] {
        events.compactMap { if case .press(let c, _) = $0 { c } else { nil } }
    }

    @Test func aPressIsOneEventAndRepeatsReleasesAndUnboundKeysAreNot() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [fifo.path], keys: [87, 0x100]))
        defer { hub.stop() }
        var bytes = InputRecord.click(30)  // KEY_A: not bound
        bytes += [InputRecord.key(87, InputRecord.repeated), .syn].flatMap(\.bytes)  // a repeat alone
        bytes += [InputRecord.key(87, InputRecord.pressed)].flatMap(\.bytes)
        bytes += Array(repeating: [InputRecord.key(87, InputRecord.repeated), .syn].flatMap(\.bytes), count: 5).joined()
        bytes += [InputRecord.key(87, InputRecord.released), .syn].flatMap(\.bytes)
        bytes += InputRecord.click(0x100)
        Task { await fifo.write(bytes) }
        let events = await Self.collect(hub) { Self.presses($0).count >= 2 }
        #expect(Self.presses(events) == [87, 0x100])
        #expect(
            events.first
                == .opened(
                    InputDeviceInfo(
                        path: fifo.path, name: "a pipe of input_event records", keys: ["KEY_F11", "BTN_0"],
                        lockSwitch: false, grabbed: false)))
    }

    @Test func aRecordSplitAcrossWritesIsPutTogether() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [fifo.path], keys: [87]))
        defer { hub.stop() }
        let press = InputRecord.click(87)
        Task {
            let fd = await Task.detached { open(fifo.path, O_WRONLY) }.value
            _ = press.withUnsafeBytes { write(fd, $0.baseAddress, 10) }
            try? await Task.sleep(for: .milliseconds(100))
            _ = press.withUnsafeBytes { write(fd, $0.baseAddress! + 10, press.count - 10) }
            close(fd)
        }
        #expect(Self.presses(await Self.collect(hub) { Self.presses($0).count >= 1 }) == [87])
    }

    @Test func aDeviceRemovedAndCreatedAgainIsOpenedAgain() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [fifo.path], keys: [87]))
        defer { hub.stop() }
        // The old device's writer stays: the hub sees the path replaced, not an end of file.
        let path = fifo.path
        let old = await Task.detached { open(path, O_WRONLY) }.value
        defer { close(old) }
        let click = InputRecord.click(87)
        _ = click.withUnsafeBytes { write(old, $0.baseAddress, $0.count) }
        unlink(fifo.path)
        try Fifo.make(fifo.path)
        Task { await fifo.write(InputRecord.click(87)) }
        let events = await Self.collect(hub) { Self.presses($0).count >= 2 }
        #expect(Self.presses(events) == [87, 87])
        // Closed when its node went (inotify) or when the new node was found in its place.
        let closed =
            events.contains(.closed(fifo.path, reason: "it went away"))
            || events.contains(.closed(fifo.path, reason: "it was replaced"))
        #expect(closed, "\(events)")
        #expect(events.filter { if case .opened = $0 { true } else { false } }.count == 2)
    }

    @Test func aDeviceThatIsNotThereYetIsOpenedWhenItAppears() async throws {
        let fifo = try Fifo()
        let late = fifo.directory + "/event7"
        let hub = InputHub(plan: InputPlan(devices: [late], keys: [87]))
        defer { hub.stop() }
        Task {
            try? await Task.sleep(for: .milliseconds(300))
            try? Fifo.make(late)
            await fifo.write(InputRecord.click(87), path: late)
        }
        let events = await Self.collect(hub) { Self.presses($0).count >= 1 }
        guard case .problem(late, let reason) = events.first else {
            Issue.record("\(events)")
            return
        }
        #expect(reason == "No such file or directory; it is opened when it appears")
        #expect(Self.presses(events) == [87])
    }

    @Test func garbageClosesTheDeviceAndItIsOpenedAgain() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [fifo.path], keys: [87]))
        defer { hub.stop() }
        Task {
            await fifo.write(InputRecord(type: 0x7777, code: 1, value: 1).bytes + InputRecord.click(87))
            try? await Task.sleep(for: .milliseconds(1500))
            await fifo.write(InputRecord.click(87))
        }
        let events = await Self.collect(hub) { Self.presses($0).count >= 1 }
        #expect(
            events.contains(.closed(fifo.path, reason: "not input_event records (an event of type 30583)")), "\(events)"
        )
        #expect(Self.presses(events) == [87], "the press after the garbage went with it; the next one counts")
    }

    @Test func theLockSwitchIsReadFromTheSameDevices() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [], lockSwitch: .path(fifo.path)))
        defer { hub.stop() }
        Task {
            await fifo.write(
                [InputRecord.lockSwitch(true), .syn, InputRecord(type: 1, code: 0x231, value: 1)].flatMap(\.bytes))
        }
        let events = await Self.collect(hub) { $0.filter { if case .lock = $0 { true } else { false } }.count >= 2 }
        let locks = events.compactMap { if case .lock(let e, _) = $0 { e } else { nil } }
        #expect(locks == [.set(true), .toggle])
    }

    /// `SW_TABLET_MODE` on the switch's device: tablet and laptop, in order; not read without
    /// `tabletMode` in the plan (`[sensor] tablet_mode = "ignore"`), while the lock still is.
    @Test func theTabletModeSwitchIsReadWithTheLockSwitch() async throws {
        let fifo = try Fifo()
        let hub = InputHub(plan: InputPlan(devices: [], lockSwitch: .path(fifo.path), tabletMode: true))
        defer { hub.stop() }
        let records = [InputRecord.tabletSwitch(true), .syn, .tabletSwitch(false), .syn, .lockSwitch(true), .syn]
        Task { await fifo.write(records.flatMap(\.bytes)) }
        let events = await Self.collect(hub) { $0.contains { if case .lock = $0 { true } else { false } } }
        let modes = events.compactMap { if case .tabletMode(let t, _) = $0 { t } else { nil } }
        #expect(modes == [true, false], "\(events)")
        let opened = events.compactMap { if case .opened(let info) = $0 { info } else { nil } }.first
        #expect(opened?.tabletMode == true && opened?.description.hasSuffix("rotation lock; tablet mode") == true)

        let ignored = try Fifo()
        let plain = InputHub(plan: InputPlan(devices: [], lockSwitch: .path(ignored.path), tabletMode: false))
        defer { plain.stop() }
        Task { await ignored.write(records.flatMap(\.bytes)) }
        let seen = await Self.collect(plain) { $0.contains { if case .lock = $0 { true } else { false } } }
        #expect(!seen.contains { if case .tabletMode = $0 { true } else { false } }, "\(seen)")
    }

    @Test func anUnreadableDeviceSaysToJoinTheInputGroup() throws {
        #expect(
            HubLoop.openProblem(EACCES).hasSuffix(
                "add the user Upright runs as to the 'input' group (usermod -aG input USER)"))
        let survey = InputHub.survey(InputPlan(devices: ["/nonexistent/event3"], keys: [87]))
        #expect(survey.devices.isEmpty)
        #expect(survey.problems.first?.reason == "No such file or directory; it is opened when it appears")
        #expect(InputHub.survey(InputPlan(devices: ["auto"])).devices.isEmpty, "nothing bound: nothing opened")
    }
}
