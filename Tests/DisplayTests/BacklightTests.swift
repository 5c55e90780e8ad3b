import Display
import Foundation
import TestSupport
import Testing

/// The screen's brightness on a fake sysfs tree: read, written, and set through a logind that
/// answers on a private bus (a stand-in for the system's, as a kiosk session asks it).
@Suite("Backlight", .serialized)
struct BacklightTests {
    static func tree() throws -> String {
        let root = NSTemporaryDirectory() + "backlight-\(UUID().uuidString.prefix(8))"
        let folder = root + "/sys/class/backlight/rpi_backlight"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "255\n".write(toFile: folder + "/max_brightness", atomically: true, encoding: .utf8)
        try "128\n".write(toFile: folder + "/brightness", atomically: true, encoding: .utf8)
        return root
    }

    static func brightness(_ root: String) -> String? {
        try? String(contentsOfFile: root + "/sys/class/backlight/rpi_backlight/brightness", encoding: .utf8)
    }

    @Test func aBacklightIsReadAndWritten() async throws {
        let root = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let backlight = try #require(Backlight.find(root: root, ddc: false, systemBus: nil))
        #expect(backlight.name == "backlight rpi_backlight")
        #expect(await backlight.percent() == 50)
        #expect(await backlight.set(percent: 20) == nil)
        #expect(Self.brightness(root) == "51")
        #expect(await backlight.percent() == 20)
        #expect(Backlight.find(root: "/nonexistent", ddc: false, systemBus: nil) == nil)
    }

    /// A fake logind: `SetBrightness` of `/org/freedesktop/login1/session/auto` writes the value
    /// into the tree and notes the call, as logind writes sysfs for a session that may not.
    static let logind = #"""
        import sys
        from gi.repository import Gio, GLib
        address, root, calls = sys.argv[1], sys.argv[2], sys.argv[3]
        xml = '''<node><interface name="org.freedesktop.login1.Session">
          <method name="SetBrightness"><arg type="s" direction="in"/><arg type="s" direction="in"/>
          <arg type="u" direction="in"/></method></interface></node>'''
        def call(conn, sender, path, iface, method, params, invocation):
            subsystem, name, value = params.unpack()
            if subsystem != 'backlight' or '/' in name:
                invocation.return_dbus_error('org.freedesktop.DBus.Error.InvalidArgs', 'no such device')
                return
            open('%s/sys/class/backlight/%s/brightness' % (root, name), 'w').write(str(value))
            open(calls, 'a').write('%s %s %d\n' % (subsystem, name, value))
            invocation.return_value(None)
        bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        bus.register_object('/org/freedesktop/login1/session/auto',
            Gio.DBusNodeInfo.new_for_xml(xml).interfaces[0], call)
        def owned(*a):
            print('ready', flush=True)
        Gio.bus_own_name_on_connection(bus, 'org.freedesktop.login1', 0, owned, None)
        GLib.MainLoop().run()
        """#

    @Test func aKioskSessionSetsItThroughLogind() async throws {
        let root = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (bus, address) = try Process.startedWithFirstLine(
            "/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"])
        defer { bus.send(SIGKILL) }
        let (fake, ready) = try Process.startedWithFirstLine(
            "/usr/bin/python3", ["-c", Self.logind, address, root, root + "/calls"])
        defer { fake.send(SIGKILL) }
        #expect(ready == "ready")
        let backlight = try #require(Backlight.find(root: root, ddc: false, systemBus: address))
        #expect(await backlight.set(percent: 80) == nil)
        #expect(Self.brightness(root) == "204")
        let calls = try String(contentsOfFile: root + "/calls", encoding: .utf8)
        #expect(calls == "backlight rpi_backlight 204\n")
        // logind gone: written directly instead (this process may).
        fake.send(SIGKILL)
        fake.waitUntilExit()
        #expect(await backlight.set(percent: 10) == nil)
        #expect(Self.brightness(root) == "26")
    }
}
