// swift-tools-version: 6.0
// The anchor `airlock serve` is measured against: a minimal server on SwiftNIO's standard HTTP/1.1
// pipeline, answering one fixed body. A package of its own, so that Airlock's build never sees it;
// Benchmarks/http-load.sh builds it in release mode and runs it beside nginx, WireMock and airlock.
import PackageDescription

let package = Package(
    name: "NIOAnchor",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "NIOAnchor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
