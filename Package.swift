// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "NoiseClock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "noiseclock", targets: ["noiseclock"]),
        .executable(name: "noiseclock-stream", targets: ["noiseclock-stream"]),
        .executable(name: "noiseclock-speak", targets: ["noiseclock-speak"]),
        .executable(name: "noiseclock-calendar", targets: ["noiseclock-calendar"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // POSIX helpers: the node's own threads and executor, a wake signal, and the one time source
        // (timerfd). Imports Glibc only.
        .systemLibrary(name: "CTimerFD"),
        .target(name: "NoiseClockSystem", dependencies: ["CTimerFD"]),

        // Pure domain, one folder per feature: commands, settings, time and zones, alarms and their
        // clockwork, the configuration schema, topics. Its only I/O is reading zone files (FileBytes).
        .target(name: "NoiseClockCore"),
        // What the features share at run time: the StateHub (states and events, in order) and the
        // typed signals features tell each other, delivered on the node's loop.
        .target(name: "NoiseClockHub", dependencies: ["NoiseClockCore", "NoiseClockSystem"]),

        // libmosquitto, seen only by NoiseClockMQTT.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // libyaml, seen only by NoiseClockYAML (the configuration file).
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(name: "NoiseClockYAML", dependencies: ["CYAML", "NoiseClockCore"]),
        .target(
            name: "NoiseClockMQTT",
            dependencies: [
                "CMosquitto",
                "NoiseClockCore",
                "NoiseClockSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Audio: libmpg123 and ALSA, seen only by NoiseClockAudio.
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(
            name: "NoiseClockAudio",
            dependencies: ["CMpg123", "CALSA", "NoiseClockCore", "NoiseClockSystem", .product(name: "Logging", package: "swift-log")]
        ),

        // Streams (SPEC §15). NoiseClockStreams is what the node links: the bounded buffer the
        // mixer reads, playlists, and `StreamProcess`, which runs the `noiseclock-stream` helper.
        // FFmpeg's libavformat, libavcodec and libswresample are seen only by NoiseClockFFmpeg, and
        // linked only into that helper: Debian's libavformat brings libxml2 and ICU, which the
        // node's process never loads (and a decoder's crash on a hostile stream is the helper's).
        .target(name: "NoiseClockStreams", dependencies: ["NoiseClockAudio", "NoiseClockHTTP", "NoiseClockSystem"]),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        .target(name: "NoiseClockFFmpeg", dependencies: ["CFFmpeg", "NoiseClockStreams", "NoiseClockAudio", "NoiseClockSystem"]),
        .executableTarget(name: "noiseclock-stream", dependencies: ["NoiseClockFFmpeg", "NoiseClockStreams", "NoiseClockSystem"]),

        // HTTP for the node's small fetches (playlists, the directory, weather, calendars): Debian's
        // libcurl, seen only by NoiseClockHTTP.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "NoiseClockHTTP", dependencies: ["CCurl", "NoiseClockSystem"]),

        // Speech (SPEC §16). NoiseClockSpeech is what the node links: `SpeechProcess` (one
        // utterance from an engine's process: text on its stdin, WAV on its stdout, resampled into a
        // `StreamBuffer`), the chime, the resampler. libespeak-ng is seen only by NoiseClockEspeak and
        // linked only into the `noiseclock-speak` helper: Debian's libespeak-ng brings libpcaudio,
        // PulseAudio's client, X11 and libsndfile, which the node's process never loads.
        .target(name: "NoiseClockSpeech", dependencies: ["NoiseClockStreams", "NoiseClockAudio", "NoiseClockSystem"]),
        .systemLibrary(name: "CEspeak", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        // The helper links nothing else of the project: a process started for every utterance
        // loads only the Swift runtime and libespeak-ng's own libraries.
        .target(name: "NoiseClockEspeak", dependencies: ["CEspeak"]),
        .executableTarget(name: "noiseclock-speak", dependencies: ["NoiseClockEspeak"]),

        // Calendars (SPEC §17). libical is seen only by NoiseClockICal (parsing a feed and expanding
        // its occurrences in a window) and linked only into the `noiseclock-calendar` helper:
        // Debian's libical links ICU (libicuuc, libicui18n and its 30 MB of data), which the node's
        // process never loads. The helper links nothing else of the project.
        .systemLibrary(name: "CICal", pkgConfig: "libical", providers: [.apt(["libical-dev"])]),
        .target(name: "NoiseClockICal", dependencies: ["CICal"]),
        .executableTarget(name: "noiseclock-calendar", dependencies: ["NoiseClockICal"]),

        // UPower (libupower-glib + GLib), seen only by NoiseClockPower.
        .systemLibrary(
            name: "CUPower",
            pkgConfig: "upower-glib",
            providers: [.apt(["libupower-glib-dev"])]
        ),
        .target(
            name: "NoiseClockPower",
            dependencies: ["CUPower", "NoiseClockCore", "NoiseClockSystem", .product(name: "Logging", package: "swift-log")]
        ),

        // The screen: a backlight under /sys/class/backlight, or the user's on/off commands.
        .target(name: "NoiseClockDisplay", dependencies: ["NoiseClockCore", "NoiseClockSystem"]),
        // The clock face's server (SPEC §9): HTTP and a WebSocket on one SwiftNIO event-loop thread.
        .target(
            name: "NoiseClockFace",
            dependencies: [
                "NoiseClockCore",
                "NoiseClockHub",
                "NoiseClockSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The services and their wiring: store, clock publisher, command service, the node.
        .target(
            name: "NoiseClockNode",
            dependencies: [
                "NoiseClockCore",
                "NoiseClockHub",
                "NoiseClockMQTT",
                "NoiseClockPower",
                "NoiseClockAudio",
                "NoiseClockFace",
                .product(name: "Logging", package: "swift-log"),
                "NoiseClockSystem",
                "NoiseClockYAML",
                "NoiseClockDisplay",
                "NoiseClockStreams",
                "NoiseClockSpeech",
                "NoiseClockHTTP",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            plugins: ["VersionStamp"]
        ),
        // The version, from the VERSION file (the one place it is written), as `BuildVersion.text`.
        .plugin(name: "VersionStamp", capability: .buildTool()),
        .executableTarget(
            name: "noiseclock",
            dependencies: [
                "NoiseClockNode",
                "NoiseClockAudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .testTarget(name: "NoiseClockSystemTests", dependencies: ["NoiseClockSystem", "NoiseClockCore"]),
        .testTarget(name: "NoiseClockHubTests", dependencies: ["NoiseClockHub", "NoiseClockCore", "NoiseClockSystem"]),
        .testTarget(
            name: "NoiseClockCoreTests",
            dependencies: ["NoiseClockCore", "NoiseClockTestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "NoiseClockAudioTests",
            dependencies: ["NoiseClockAudio", "NoiseClockTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "NoiseClockStreamsTests",
            dependencies: ["NoiseClockStreams", "NoiseClockFFmpeg", "NoiseClockHTTP", "NoiseClockAudio", "NoiseClockTestSupport"]
        ),
        .testTarget(
            name: "NoiseClockSpeechTests",
            dependencies: ["NoiseClockSpeech", "NoiseClockEspeak", "NoiseClockStreams", "NoiseClockAudio", "NoiseClockSystem", "NoiseClockTestSupport"]
        ),
        .testTarget(name: "NoiseClockICalTests", dependencies: ["NoiseClockICal", "NoiseClockTestSupport"]),
        .testTarget(name: "NoiseClockPowerTests", dependencies: ["NoiseClockPower", "NoiseClockCore"]),
        .testTarget(name: "NoiseClockDisplayTests", dependencies: ["NoiseClockDisplay", "NoiseClockSystem"]),
        .testTarget(
            name: "NoiseClockNodeTests",
            dependencies: [
                "NoiseClockNode",
                "NoiseClockCore",
                "NoiseClockHub",
                "NoiseClockMQTT",
                "NoiseClockAudio",
                "NoiseClockTestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "NoiseClockFaceTests",
            dependencies: [
                "NoiseClockFace", "NoiseClockCore", "NoiseClockHub", "NoiseClockSystem", "NoiseClockTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Starts brokers and nodes as child processes; shared by the integration tests and the benchmarks.
        .target(
            name: "NoiseClockTestSupport",
            dependencies: [
                "NoiseClockMQTT", "NoiseClockCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "NoiseClockIntegrationTests",
            dependencies: ["NoiseClockTestSupport", "NoiseClockMQTT", "NoiseClockCore"]
        ),
        // Against a real Home Assistant Core (make e2e-ha); `make test` skips it.
        .testTarget(
            name: "NoiseClockHomeAssistantTests",
            dependencies: ["NoiseClockTestSupport", "NoiseClockMQTT", "NoiseClockCore"]
        ),
        .executableTarget(
            name: "noiseclock-bench",
            dependencies: ["NoiseClockTestSupport", "NoiseClockMQTT", "NoiseClockCore"],
            path: "bench/Sources"
        ),
    ],
    swiftLanguageModes: [.v6]
)
