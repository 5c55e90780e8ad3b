// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Upright",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "upright", targets: ["upright"]),
        .library(name: "OrientationCore", targets: ["OrientationCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-numerics.git", from: "1.1.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // Only the benchmarks use it: the TOML reader the project's own replaced, as its baseline.
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        // C libraries: each wrapped once, by exactly one Swift module.
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        // libmpv-dev's headers (in /usr/include); the library itself is loaded when a core is first
        // made, so only the process that plays maps it.
        .target(name: "CMPV", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's allocator controls (malloc.h): libc itself, always linked.
        .systemLibrary(name: "CMalloc"),
        // The kernel's clock discipline (sys/timex.h): libc itself.
        .systemLibrary(name: "CTimex"),
        // glibc's spawn action that closes the descriptors from one on (spawn.h): libc itself.
        .systemLibrary(name: "CSpawn"),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The kernel's HDMI-CEC interface (<linux/cec.h>): its structures and ioctl numbers.
        .systemLibrary(name: "CLinuxCEC"),
        // A process's own confinement: libseccomp's filters, and Landlock's system calls.
        .systemLibrary(name: "CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
        .systemLibrary(name: "CLandlock"),
        .target(name: "Confinement", dependencies: ["CLandlock", "CSeccomp"], swiftSettings: strict),
        .target(
            name: "IIO", dependencies: ["CIIO", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        // The one way off the cooperative pool for blocking work (C calls, helper programs, sockets).
        .target(name: "Blocking", dependencies: ["CSpawn"], swiftSettings: strict),
        // Why a file cannot be read, said one way for configurations, traces and playlists.
        .target(name: "Files", dependencies: ["Playback"], swiftSettings: strict),
        .target(name: "Udev", dependencies: ["CUdev"], swiftSettings: strict),
        // An MQTT client (libmosquitto): the fleet's broker.
        .target(name: "MQTT", dependencies: ["CMosquitto", "Settings"], swiftSettings: strict),
        // The service manager's notifications (readiness, status, watchdog) through libsystemd.
        .target(name: "Systemd", dependencies: ["Blocking", "CSystemd"], swiftSettings: strict),
        .target(name: "Picture", dependencies: ["CZlib"], swiftSettings: strict),
        // Linux input devices (evdev): buttons, keypads, remotes and the rotation-lock switch.
        .target(name: "Input", dependencies: ["Blocking", "Files", "Settings"], swiftSettings: strict),
        // HDMI-CEC adapters (/dev/cecN): the TV to standby and back on.
        .target(name: "CEC", dependencies: ["CLinuxCEC"], swiftSettings: strict),
        // libmpv 0.35's Wayland output closes its display's socket twice; this C module holds
        // libmpv's own close back so that the second one cannot take another thread's descriptor.
        .target(name: "CMPVCloseGuard", linkerSettings: [.linkedLibrary("dl")]),
        // Whether the system clock is kept to true time (the kernel's adjtimex state).
        .target(name: "TimeSync", dependencies: ["CTimex"], swiftSettings: strict),
        // A video wall's schedule, clock offset and correction: pure values.
        .target(
            name: "Sync",
            dependencies: ["OrientationCore", "Wire", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        // glibc's allocator held to what a process uses (both Upright's and its mpv's).
        .target(name: "Memory", dependencies: ["CMalloc"], swiftSettings: strict),
        .target(
            name: "MPV", dependencies: ["Blocking", "CMPV", "CMPVCloseGuard", "Confinement", "Memory", "UnixSocket"],
            swiftSettings: strict),

        // Pure core: no I/O, no clock; only the standard library and swift-numerics' elementary functions.
        .target(
            name: "OrientationCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strict
        ),

        // The session's rules as a value (pure): inputs in, effects out; `upright play` and the dry run drive it.
        // Every record that crosses a boundary (the control socket's replies and the status, the
        // MQTT state, Home Assistant's discovery, the play log's lines): one Codable type each.
        .target(name: "Wire", dependencies: ["OrientationCore"], swiftSettings: strict),
        .target(name: "Session", dependencies: ["OrientationCore", "Playback", "Wire"], swiftSettings: strict),
        // The settings as values (the configuration reads into them): no C library, no I/O.
        .target(name: "Settings", dependencies: ["OrientationCore"], swiftSettings: strict),
        // The player's rules as a value (pure): mpv's events, scans and requests in, mpv commands out.
        .target(name: "Playback", dependencies: ["OrientationCore", "Sync", "Wire"], swiftSettings: strict),

        .target(
            name: "Sensors",
            dependencies: [
                "Blocking", "Files", "Input", "OrientationCore", "IIO", "Settings", "Udev",
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Player",
            dependencies: [
                "Blocking", "Confinement", "Files", "MPV", "OrientationCore", "Playback", "Settings", "SMIL", "Sync",
                "Wire",
            ],
            swiftSettings: strict),
        .target(name: "UnixSocket", dependencies: ["Blocking"], swiftSettings: strict),
        // Remote playlist items in a cache that survives the network (async-http-client).
        .target(
            name: "RemoteCache",
            dependencies: [
                "Blocking", "Files",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        .target(
            name: "Display",
            dependencies: [
                "Blocking", "Files", "OrientationCore", "Settings", "Systemd", "Udev", "UnixSocket",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // The control socket (SwiftNIO's async channels) and its client: JSON lines in and out.
        .target(
            name: "Control",
            dependencies: [
                "Blocking", "Session", "Wire", "UnixSocket",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The session's metrics (swift-prometheus), the textfile and `/metrics` services.
        .target(
            name: "UprightMetrics",
            dependencies: [
                "OrientationCore", "Playback", "Sensors", "Session", "Wire", "Web",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The screen as a node of an MQTT broker, with Home Assistant's discovery.
        .target(
            name: "Fleet",
            dependencies: [
                "Config", "MQTT", "OrientationCore", "Session", "Wire", "Settings",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The proof-of-play log: what played, as JSON lines in a rotated file.
        .target(
            name: "PlayLog",
            dependencies: [
                "Config", "OrientationCore", "Session", "Settings", "Wire",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // A wall's group over MQTT: the transport of `Sync.GroupCore`.
        .target(
            name: "WallLink",
            dependencies: [
                "Config", "MQTT", "OrientationCore", "Session", "Wire", "Settings", "Sync",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "UprightDaemon",
            dependencies: [
                "Blocking", "CEC", "Config", "Confinement", "Display", "Files", "Input", "Memory", "MPV", "MQTT",
                "OrientationCore",
                "Picture",
                "Health", "Playback", "Player", "RemoteCache", "Sensors", "Settings",
                "Session", "SMIL", "Wire",
                "Sync", "Systemd", "UnixSocket", "Web", "Control", "Fleet", "PlayLog", "UprightMetrics", "WallLink",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        // The parsers of outside bytes as fuzz targets (`make fuzz`), and their replayer.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Config", "Display", "Health", "MPV", "Playback", "RemoteCache", "Session", "SMIL", "Wire", "Sync",
                "TOML",
            ],
            swiftSettings: strict),
        .executableTarget(name: "upright-fuzz", dependencies: ["FuzzTargets"], swiftSettings: strict),
        // The operator's page (Hummingbird): log-in, live status, controls, preview, content and
        // configuration, and `/metrics` beside them.
        .target(
            name: "Web",
            dependencies: [
                "Blocking", "Config", "Diagnostics", "Files", "OrientationCore", "Settings", "Wire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `upright demo`: its scripts, its run through the whole program, and its readable log.
        .target(
            name: "Demo",
            dependencies: [
                "Config", "Display", "MPV", "OrientationCore", "Picture", "Player", "Sensors", "Settings",
                "UprightDaemon",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // TOML 1.0 read into plain Swift values (no C++ library whose tables are never freed).
        .target(name: "TOML", swiftSettings: strict),
        // A problem in a file with its place, said as a compiler says it (configurations, SMIL indexes).
        .target(name: "Diagnostics", swiftSettings: strict),
        // SMIL indexes, the signage CMSes' format: the reader (libxml2 through FoundationXML) and the
        // presentation's rules in time as a value (a pure core: moments in, what each region shows out).
        .target(name: "SMIL", dependencies: ["Diagnostics", "OrientationCore", "Wire"], swiftSettings: strict),
        // A node's health: the verdict's rules as values, and the hardware as sysfs and the
        // kernel log show it (under-voltage, heat, storage errors).
        .target(name: "Health", swiftSettings: strict),
        .target(
            name: "Config",
            dependencies: [
                "Diagnostics", "Files", "Input", "OrientationCore", "Playback", "Settings", "TOML",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "UprightCLI",
            dependencies: [
                "CEC", "OrientationCore", "Sensors", "IIO", "Input", "MPV", "Config", "Demo", "Diagnostics", "Display",
                "SMIL",
                "Files", "Memory", "Playback", "Player",
                "Settings",
                "Session", "Wire", "Systemd", "TimeSync", "UprightDaemon", "Control",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "upright", dependencies: ["UprightCLI"], swiftSettings: strict,
            // No symbol of the program's exported (packaging/upright.exports says why).
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/packaging/upright.exports"])
            ]),
        .executableTarget(
            name: "upright-bench",
            dependencies: [
                "OrientationCore", "Sensors", "Player", "Playback", "Memory", "MPV", "Display", "Picture", "Settings",
                "Config", "TOML", "UprightDaemon", .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            path: "Benchmarks/upright-bench",
            swiftSettings: strict
        ),

        .testTarget(
            name: "OrientationCoreTests",
            dependencies: [
                "OrientationCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PlaybackTests",
            dependencies: [
                "Playback", "OrientationCore", "Sync", "Wire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionTests",
            dependencies: [
                "Session", "Wire", "OrientationCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "OrientationCore", "Sync", "Wire", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SensorsTests", dependencies: ["Sensors", "OrientationCore", "Settings"], swiftSettings: strict),
        .testTarget(
            name: "ConfigTests",
            dependencies: ["Config", "Diagnostics", "OrientationCore", "Playback", "Settings"],
            swiftSettings: strict),
        .testTarget(
            name: "SensorsIntegrationTests",
            dependencies: ["Blocking", "OrientationCore", "Picture", "Session", "Wire", "TestSupport", "upright"],
            swiftSettings: strict),
        .testTarget(
            name: "TOMLTests",
            dependencies: ["TOML", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict),
        .testTarget(name: "IIOTests", dependencies: ["IIO"], swiftSettings: strict),
        .testTarget(
            name: "RemoteCacheTests",
            dependencies: [
                "RemoteCache", "TestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "Config", "Web", "Wire", .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(name: "InputTests", dependencies: ["Input"], swiftSettings: strict),
        .testTarget(name: "CECTests", dependencies: ["CEC"], swiftSettings: strict),
        .testTarget(name: "UdevTests", dependencies: ["Udev"], swiftSettings: strict),
        .testTarget(name: "PictureTests", dependencies: ["Picture"], swiftSettings: strict),
        .testTarget(name: "HealthTests", dependencies: ["Health", "Systemd"], swiftSettings: strict),
        .testTarget(
            name: "SMILTests",
            dependencies: ["SMIL", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict),
        .testTarget(
            name: "DisplayTests",
            dependencies: ["Display", "Player", "Playback", "MPV", "OrientationCore", "Settings", "TestSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "TestSupport", dependencies: ["Blocking", "Display", "Picture", "Settings"],
            path: "Tests/TestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "MPVTests", dependencies: ["Confinement", "MPV", "Playback", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
        .testTarget(name: "TimeSyncTests", dependencies: ["CTimex", "TimeSync"], swiftSettings: strict),
        .testTarget(
            name: "PlayerTests",
            dependencies: [
                "Blocking", "Files", "Picture", "Playback", "Player", "MPV", "OrientationCore", "Settings", "SMIL",
                "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "UprightDaemonTests",
            dependencies: [
                "Blocking", "Control", "UprightMetrics", "WallLink", "UprightDaemon", "Config", "OrientationCore",
                "MPV", "Session", "Wire", "TestSupport", "UnixSocket",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "UprightCLITests",
            dependencies: [
                "Blocking", "Control", "UprightMetrics", "WallLink", "Display", "Input", "UprightCLI", "UprightDaemon",
                "OrientationCore", "Picture", "Sensors",
                "Session", "Wire", "TestSupport", "TimeSync", "UnixSocket",
                "upright",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
