// swift-tools-version: 6.0
// The HTTP/2 anchor `airlock serve` is measured against: a minimal server on swift-nio-http2's
// standard pipeline (`configureHTTP2Pipeline`, each stream through `HTTP2FramePayloadToHTTP1ServerCodec`),
// answering one fixed body over h2c with prior knowledge. A package of its own, so that Airlock's
// build never sees it; Benchmarks/http2-load.sh builds it in release mode and runs it beside airlock.
import PackageDescription

let package = Package(
    name: "NIOAnchorHTTP2",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    ],
    targets: [
        .executableTarget(
            name: "NIOAnchorHTTP2",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
