// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Airlock",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "HTTPMock", targets: ["HTTPMock"]),
        .library(name: "HTTPMockTesting", targets: ["HTTPMockTesting"]),
        .library(name: "Airgap", targets: ["Airgap"]),
        .library(name: "MockServer", targets: ["MockServer"]),
        .executable(name: "airlock", targets: ["AirlockCLI"]),
        .executable(name: "airlock-demo", targets: ["AirlockDemo"]),
        .executable(name: "airlock-bench", targets: ["AirlockBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Transport-agnostic core: request/response values, patterns, the registry and its
        // queues. No URLRequest in here, so a loopback server can serve the same registry.
        .target(name: "AirlockCore"),
        // The URLSession adapter: a URLProtocol over the core, plus the documented HTTPMock API.
        .target(name: "HTTPMock", dependencies: ["AirlockCore", .product(name: "Logging", package: "swift-log")]),
        // Verification for tests: count assertions and unused-stub checks for Swift Testing and XCTest.
        .target(name: "HTTPMockTesting", dependencies: ["HTTPMock"]),
        // MockServer: the same registry served over a real loopback socket (SwiftNIO).
        .target(
            name: "MockServer",
            dependencies: [
                "HTTPMock",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The `airlock` command: `airlock serve stubs.json`.
        .executableTarget(
            name: "AirlockCLI",
            dependencies: ["MockServer", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Airgap: a guard URLProtocol plus a C layer interposing connect/getaddrinfo.
        .target(name: "CAirgap"),
        .target(name: "Airgap", dependencies: ["CAirgap", "AirlockCore"]),
        // A small program that links Airgap and tries connections, for whole-run-mode tests.
        .executableTarget(
            name: "AirgapProbe",
            dependencies: [
                "Airgap",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "AirlockDemo", dependencies: ["HTTPMock"]),
        // Prints figures; run in release: swift run -c release airlock-bench
        .executableTarget(name: "AirlockBenchmarks", dependencies: ["HTTPMock"], path: "Benchmarks/AirlockBenchmarks"),
        .testTarget(name: "AirlockCoreTests", dependencies: ["AirlockCore"]),
        .testTarget(
            name: "MockServerTests",
            dependencies: [
                "MockServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AirgapTests",
            dependencies: [
                "Airgap",
                "AirlockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HTTPMockTests",
            dependencies: [
                "HTTPMock",
                "HTTPMockTesting",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.process("Fixtures")]
        ),
    ]
)
