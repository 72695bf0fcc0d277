// swift-tools-version: 6.2
// libFuzzer harnesses for Airlock, kept out of the main package so that its build, tests and
// products never see them. Build and run them with `Fuzz/run` (see Fuzz/README.md).
import PackageDescription

let package = Package(
    name: "AirlockFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The repository root: its HTTPMock and AirlockCore products.
        .package(name: "Airlock", path: ".."),
    ],
    targets: [
        // libFuzzer's LLVMFuzzerRunDriver, declared for Swift (the library itself comes with
        // `-sanitize=fuzzer`).
        .systemLibrary(name: "CLibFuzzer"),
        // Each harness: `@_cdecl("LLVMFuzzerTestOneInput")` in <Name>.swift, and a main.swift that
        // runs libFuzzer on it. Build with `-sanitize=fuzzer` (Fuzz/run does).
        // Both resolve requests through `@_spi(Fuzzing) MockRegistry.respond(…)`, without a
        // transport or any waiting.
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .executableTarget(
            name: "FuzzStubFile",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock"), .product(name: "AirlockStubFiles", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzMatching",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzHAR",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzDrift",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCassettes", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzWireMock",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzWireMockMatchers",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzWireMockXML",
            dependencies: [
                "FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock"),
                .product(name: "AirlockWireMockXML", package: "Airlock"),
            ]
        ),
        .executableTarget(
            name: "FuzzTemplates",
            dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock"), .product(name: "AirlockStubFiles", package: "Airlock")]
        ),
        .executableTarget(
            name: "FuzzOpenAPI",
            dependencies: [
                "FuzzSupport", .product(name: "HTTPMock", package: "Airlock"), .product(name: "AirlockCore", package: "Airlock"),
                .product(name: "AirlockOpenAPICore", package: "Airlock"),
            ]
        ),
        // gRPC's codec and framing (AirlockGRPCCore), by the descriptor set of Tests/Fixtures/GRPC.
        .executableTarget(
            name: "FuzzGRPC",
            dependencies: ["FuzzSupport", .product(name: "AirlockGRPCCore", package: "Airlock")]
        ),
    ]
)
