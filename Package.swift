// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Singlecast",
    products: [
        .executable(name: "singlecast", targets: ["singlecast"]),
        .library(name: "SinglecastKit", targets: ["SinglecastKit"]),
        .library(name: "SinglecastUI", targets: ["SinglecastUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // ncurses with wide characters, for the terminal UI (its shim reaches what macros hide).
        // Its flags come from the shim, not pkg-config (whose `-D_XOPEN_SOURCE=600` SwiftPM refuses).
        .systemLibrary(
            name: "CNcursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        // Starts the player as a child that dies with its parent (PR_SET_PDEATHSIG).
        .target(name: "CSpawn"),
        // SQLite's process-wide settings, which Swift cannot reach (`sqlite3_config` is variadic).
        .target(name: "CSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "SinglecastKit",
            dependencies: [
                "CLibXML2",
                "CSpawn",
                "CSQLiteSettings",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // The terminal UI: a state value, an update function, a view drawn into a canvas, and
        // the terminal side over ncursesw.
        .target(
            name: "SinglecastUI",
            dependencies: ["SinglecastKit", "SinglecastWords", "CNcursesw"]
        ),
        // What the two front ends say alike, written once.
        .target(name: "SinglecastWords", dependencies: ["SinglecastKit"]),
        .executableTarget(
            name: "singlecast",
            dependencies: [
                "SinglecastKit",
                "SinglecastUI",
                "SinglecastWords",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // The reason phrases of HTTP statuses, for the words of HTTP failures.
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // Linked for a faster start: lld packs the relocations of the runtime's pointers
            // (DT_RELR, glibc 2.36 and later; gold cannot), and the program's own symbols stay out
            // of the dynamic symbol table (Swift exports them all; the loader's lookups and the
            // runtime's start-up dladdr search them). Figures in Benchmarks/README.md.
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))
            ]
        ),
        .executableTarget(
            name: "parse-feed",
            dependencies: ["SinglecastKit"],
            path: "Benchmarks/ParseFeed"
        ),
        // Plays a file and waits, for the test that kills its process and checks the player dies too.
        .executableTarget(
            name: "player-probe",
            dependencies: ["SinglecastKit"],
            path: "Tests/PlayerProbe"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SinglecastKitTests",
            dependencies: ["SinglecastKit", "TestSupport"]
        ),
        .testTarget(
            name: "SinglecastUITests",
            dependencies: ["SinglecastUI", "TestSupport"]
        ),
        .testTarget(
            name: "SinglecastCLITests",
            dependencies: ["singlecast", "TestSupport"]
        ),
        // The executable's own code (its words), tested without running it.
        .testTarget(
            name: "singlecastTests",
            dependencies: ["singlecast"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
