import Foundation
import Session
import TestSupport
import Testing
import Wire

/// The real libiio reading a fake sysfs tree in a private mount namespace, and a real iiod.
@Suite(
    "Sensor with the real libiio", .serialized,
    .enabled(if: namespacesWork, "needs a private mount namespace (root, or unprivileged user namespaces)"))
struct SensorIntegrationTests {
    @Test func followsAScriptedRotationThroughTheLocalBackend() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let run = try uprightInNamespace(
            fake, ["sensor", "--uri", "local:", "--json", "--rate", "50", "--duration", "60"])
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] })
        try fake.landscapeLeft()
        #expect(await run.waitFor { orientations($0.stdout).count == 2 })
        try fake.faceUp()
        await run.finish { orientations($0.stdout).count == 3 }
        #expect(orientations(run.stdout) == ["portrait", "landscape-left", "face-up"], "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "reading iio:device0 (accel_3d) at local:, raw values, mount matrix 1, 0, 0; 0, 1, 0; 0, 0, 1 from the sysfs mount_matrix"
            ))
        #expect(run.process.terminationStatus == 0)
        // It asked the device for readings at least as often as it polls.
        #expect(run.stderr.contains("sampling frequency raised from 25.0 to 50.0 Hz"))
        let odr = try String(
            contentsOf: fake.device.appendingPathComponent("in_accel_sampling_frequency"), encoding: .utf8)
        // libiio writes the terminating NUL too.
        #expect(odr.trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters)) == "50")
    }

    @Test func theMotionFallbackPrefersAGravityChannel() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        try fake.addGravityDevice(x: 9.7, y: 0.3, z: 1.0)  // the fused gravity says landscape-left
        let run = try uprightInNamespace(fake, ["sensor", "--motion"])
        await run.wait()
        #expect(run.stdout.hasPrefix("{\"orientation\": \"landscape-left\""), "\(run.stdout)")
        #expect(run.stdout.contains("\"source\": \"gravity channel\""))
    }

    @Test func theLockSwitchMakesTheOrientationUnknownAndStopsPolling() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let fifo = fake.root.appendingPathComponent("lock-switch").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try uprightInNamespace(
            fake, ["sensor", "--json", "--rate", "50", "--lock-switch", fifo, "--duration", "60"])
        let writer = FileHandle(forWritingAtPath: fifo)!
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] })
        writer.write(Data(RotationLockSwitchRecords.switched(on: true)))
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait", "unknown"] })
        // Turned while locked: nothing is reported, and nothing is read.
        try fake.landscapeLeft()
        try await Task.sleep(for: .milliseconds(500))
        #expect(orientations(run.stdout) == ["portrait", "unknown"])
        #expect(run.stderr.contains("sensor paused: polling stopped while the rotation lock is on"))
        // The rotate-lock key toggles it off again; the orientation now is reported at once.
        writer.write(Data(RotationLockSwitchRecords.keyPress()))
        await run.finish { orientations($0.stdout).count == 3 }
        writer.closeFile()
        #expect(orientations(run.stdout) == ["portrait", "unknown", "landscape-left"], "\(run.stdout)")
        #expect(run.stderr.contains("sensor reading: polling resumed (the rotation lock is off); reading iio:device0"))
        let locks = run.stdout.split(separator: "\n").filter { $0.contains("\"locked\"") }
        #expect(locks.count == 3 && locks[1].contains("\"locked\": true, \"source\": \"switch\""))
    }

    @Test func theDeviceGoesAwayAndComesBack() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let run = try uprightInNamespace(fake, ["sensor", "--json", "--rate", "50", "--duration", "60"])
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] })
        try fake.unplug()
        #expect(await run.waitFor { $0.stderr.contains("lost the accelerometer") })
        #expect(
            await run.waitFor {
                $0.stderr.contains("sensor absent: no accelerometer at local:") || $0.stderr.contains("sensor faulty")
            })
        try fake.replug()
        try fake.landscapeLeft()
        await run.finish { orientations($0.stdout).count == 3 }
        // While it was away the orientation was not known.
        #expect(orientations(run.stdout) == ["portrait", "unknown", "landscape-left"], "\(run.stderr)")
        #expect(
            run.stderr.components(separatedBy: "sensor reading: reading iio:device0").count == 3,
            "found again: \(run.stderr)")
    }

    @Test func aReplacedValueFileIsOpenedAgain() async throws {
        // Upright keeps the value files open; sysfs keeps a file while its device lives, but a tree of
        // plain files may replace one (a new inode): it is checked once a second and opened again.
        let fake = try FakeIIO()
        try fake.portrait()
        let run = try uprightInNamespace(fake, ["sensor", "--json", "--rate", "50", "--duration", "60"])
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] })
        for (axis, value) in [("x", -9.7), ("y", -0.2)] {
            try fake.write("in_accel_\(axis)_raw", String(Int((value / fake.scale).rounded())))
        }
        await run.finish { orientations($0.stdout).count == 2 }
        #expect(orientations(run.stdout) == ["portrait", "landscape-left"], "\(run.stderr)")
        #expect(!run.stderr.contains("lost the accelerometer"))
    }

    @Test func badValuesAreSkippedAndCounted() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let run = try uprightInNamespace(fake, ["sensor", "--json", "--rate", "50", "--duration", "60"])
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] })
        try fake.setValue("in_accel_x_raw", "abc")
        #expect(
            await run.waitFor {
                $0.stderr.contains(
                    "skipped 1 reading(s): iio:device0 (accel_3d): accel_x raw reads 'abc', not a usable number")
            })
        try fake.setValue("in_accel_x_raw", "99999999")
        #expect(await run.waitFor { $0.stderr.contains("absurd reading") })
        try fake.landscapeLeft()
        await run.finish { orientations($0.stdout).count == 2 }
        #expect(orientations(run.stdout) == ["portrait", "landscape-left"])
        #expect(run.process.terminationStatus == 0)
    }

    @Test func aMissingScaleNamesTheAttribute() async throws {
        let fake = try FakeIIO(scale: false)
        let run = try uprightInNamespace(fake, ["sensor", "--duration", "1"])
        await run.wait()
        #expect(
            run.stderr.contains("iio:device0 (accel_3d): channel accel_x has no 'scale' attribute"), "\(run.stderr)")
        #expect(run.process.terminationStatus == 0)
    }

    @Test func aWrongScaleIsCalledOut() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        try fake.write("in_accel_scale", "0.000981")  // ten times too small
        let run = try uprightInNamespace(fake, ["sensor", "--rate", "50", "--duration", "1.5"])
        await run.wait()
        #expect(
            run.stderr.contains(
                "iio:device0 (accel_3d): |g| averages 0.98 m/s² over the first 50 readings, far from 9.81"),
            "\(run.stderr)")
    }

    @Test func anInvertedAxisIsCalledOut() async throws {
        let fake = try FakeIIO()
        try fake.set(x: 0.2, y: 0.3, z: -9.8)  // at rest, "facing the floor": z inverted
        let run = try uprightInNamespace(fake, ["sensor", "--rate", "50", "--duration", "1.5"])
        await run.wait()
        #expect(
            run.stderr.contains(
                "at rest it reads the screen facing the floor (z = -10 m/s²): the z axis looks inverted"),
            "\(run.stderr)")
    }

    @Test func doctorSaysTheAxesLookSwappedForAPortraitKiosk() async throws {
        let fake = try FakeIIO()
        try fake.landscapeLeft()  // x and y swapped by a missing matrix: the upright kiosk reads landscape
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-\(UUID().uuidString).toml")
        try
            "[app]\nsupported = [\"portrait\"]\n[scenes.fullscreen]\nsupported = [\"portrait\"]\npreferred = \"portrait\"\n"
            .write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        let doctor = try uprightInNamespace(fake, ["doctor", "--config", config.path])
        await doctor.wait()
        #expect(
            doctor.stdout.contains(
                "the device reads landscape-left now while the configuration launches in portrait"),
            "\(doctor.stdout)\(doctor.stderr)")
        #expect(doctor.process.terminationStatus == 1)
    }

    @Test func noAccelerometerAtAll() async throws {
        let fake = try FakeIIO(name: "als", channels: [])
        let run = try uprightInNamespace(fake, ["sensor", "--duration", "1"])
        await run.wait()
        #expect(run.stderr.contains("sensor absent: no accelerometer at local:"), "\(run.stderr)")
        #expect(run.process.terminationStatus == 1, "no sensor from the start is an error")
        let doctor = try uprightInNamespace(fake, ["doctor"])
        await doctor.wait()
        #expect(doctor.process.terminationStatus == 1)
        #expect(doctor.stdout.contains("  - no accelerometer at local:"))
    }

    @Test func theConfiguredMountMatrixWinsAndABadOneIsRefused() async throws {
        let fake = try FakeIIO(matrix: "0, 0, 0; 0, 1, 0; 0, 0, 1")
        // Raw (−9.7 on x): with identity the device reads x = +9.7, landscape-left.
        try fake.setValue("in_accel_x_raw", String(Int((-9.7 / fake.scale).rounded())))
        let doctor = try uprightInNamespace(fake, ["doctor"])
        await doctor.wait()
        #expect(doctor.stdout.contains("mount matrix: 1, 0, 0; 0, 1, 0; 0, 0, 1 (from the identity (none given))"))
        #expect(doctor.stdout.contains("udev ACCEL_MOUNT_MATRIX: none (udev's database has none for this device)"))
        #expect(
            doctor.stdout.contains(
                "refused the sysfs mount_matrix '0, 0, 0; 0, 1, 0; 0, 0, 1': the first row is all zeros"))
        #expect(doctor.stdout.contains("→ landscape-left"))
        // A sensor mounted turned: the hwdb-style matrix "0, -1, 0; 1, 0, 0; 0, 0, 1" makes the same raw
        // reading (−9.7, 0, 0) read (0, −9.7, 0) in iio-sensor-proxy's frame: upright, portrait.
        let turned = try uprightInNamespace(fake, ["doctor", "--mount-matrix", "0, -1, 0; 1, 0, 0; 0, 0, 1"])
        await turned.wait()
        #expect(turned.stdout.contains("(from the configuration)"))
        #expect(turned.stdout.contains("→ portrait ("), "\(turned.stdout)")
    }

    @Test func udevsMountMatrixComesBeforeTheSysfsOne() async throws {
        // The hwdb-style matrix of a sensor mounted turned, in udev's database; sysfs says identity.
        let fake = try FakeIIO(udevMatrix: "0, -1, 0; 1, 0, 0; 0, 0, 1")
        try fake.setValue("in_accel_x_raw", String(Int((-9.7 / fake.scale).rounded())))
        let doctor = try uprightInNamespace(fake, ["doctor"])
        await doctor.wait()
        #expect(
            doctor.stdout.contains("mount matrix: 0, -1, 0; 1, 0, 0; 0, 0, 1 (from the udev ACCEL_MOUNT_MATRIX)"),
            "\(doctor.stdout)")
        #expect(doctor.stdout.contains("→ portrait ("), "\(doctor.stdout)")
        #expect(doctor.stdout.contains(", read from its sysfs files kept open"))
        // The configuration still comes first.
        let configured = try uprightInNamespace(fake, ["doctor", "--mount-matrix", "1, 0, 0; 0, 1, 0; 0, 0, 1"])
        await configured.wait()
        #expect(configured.stdout.contains("(from the configuration)"))
        #expect(configured.stdout.contains("udev ACCEL_MOUNT_MATRIX: 0, -1, 0; 1, 0, 0; 0, 0, 1"))
        #expect(configured.stdout.contains("→ landscape-left"), "\(configured.stdout)")
        // A bad one in udev's database is refused by name, and the sysfs one is used.
        try fake.setUdevMatrix("1, 0, 0; 1, 0, 0; 0, 0, 1")
        let refused = try uprightInNamespace(fake, ["doctor"])
        await refused.wait()
        #expect(
            refused.stdout.contains("refused the udev ACCEL_MOUNT_MATRIX '1, 0, 0; 1, 0, 0; 0, 0, 1'"),
            "\(refused.stdout)")
        #expect(refused.stdout.contains("(from the sysfs mount_matrix)"))
    }

    @Test func recordWritesATrace() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let out = fake.root.appendingPathComponent("rec.csv").path
        let run = try uprightInNamespace(fake, ["record", "--out", out, "--rate", "50", "--duration", "1"])
        await run.wait()
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.first == "t,x,y,z")
        #expect(lines.count > 35 && lines.count < 60, "\(lines.count) lines")
        #expect(run.stderr.contains("wrote \(lines.count - 1) samples to \(out)"))
        let replay = try Running(uprightPath, ["replay", out])
        await replay.wait()
        #expect(orientations(replay.stdout) == ["portrait"])
    }

    @Test func theMotionFallbackMeasuresABurst() async throws {
        let fake = try FakeIIO()
        try fake.landscapeLeft()
        let run = try uprightInNamespace(fake, ["sensor", "--motion"])
        await run.wait()
        let motion = try JSONDecoder().decode(SensorRecord.Motion.self, from: Data(run.stdout.utf8))
        #expect(motion.orientation == .landscapeLeft)
        #expect(motion.confidence.value > 0.8)
        #expect(motion.source == "accelerometer")
        #expect(motion.samples >= 5)
        // With no sensor it answers unknown at once.
        let none = try Running(uprightPath, ["sensor", "--motion", "--uri", "none"])
        await none.wait()
        #expect(
            none.stdout.contains(
                "\"orientation\": \"unknown\", \"confidence\": 0.000, \"samples\": 0, \"source\": \"none\""))
    }

    @Test(.enabled(if: iiodPath != nil, "needs iiod (Debian package iiod)"))
    func throughARealIiodWhichStopsAndComesBack() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        let port = String(30_431 + Int.random(in: 100...2000))
        var iiod = try Running(
            repositoryRoot.appendingPathComponent("scripts/with-fake-iio.sh").path,
            [fake.root.path, iiodPath!, "-p", port])
        defer { iiod.stop(kill: true) }
        try await Task.sleep(for: .milliseconds(800))
        let run = try Running(
            uprightPath, ["sensor", "--uri", "ip:127.0.0.1:\(port)", "--json", "--rate", "25", "--duration", "60"])
        #expect(await run.waitFor { orientations($0.stdout) == ["portrait"] }, "\(run.stderr)")
        let doctor = try Running(uprightPath, ["doctor", "--uri", "ip:127.0.0.1:\(port)"])
        await doctor.wait()
        #expect(doctor.stdout.contains("accelerometer: iio:device0 (accel_3d), raw values"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains(", read through libiio"))
        try fake.landscapeLeft()
        #expect(await run.waitFor { orientations($0.stdout).count == 2 })
        iiod.stop(kill: true)
        #expect(
            await run.waitFor { $0.stderr.contains("lost the accelerometer") || $0.stderr.contains("sensor faulty") })
        iiod = try Running(
            repositoryRoot.appendingPathComponent("scripts/with-fake-iio.sh").path,
            [fake.root.path, iiodPath!, "-p", port])
        try fake.faceUp()
        await run.finish(timeout: 30) { orientations($0.stdout).count == 4 }
        // Not known while iiod was away.
        #expect(orientations(run.stdout) == ["portrait", "landscape-left", "unknown", "face-up"], "\(run.stderr)")
        #expect(run.stderr.contains("sensor reading: reading iio:device0 (accel_3d) at ip:127.0.0.1:\(port)"))
    }
}
