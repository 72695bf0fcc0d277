// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Airlock",
    // The floor of every product that builds on Apple platforms: no API they call needs more (the
    // README's "Platforms" table says what sets it; PlatformsTests keeps newer APIs out of their
    // sources). Airgap's socket layer is Linux's; elsewhere its URLSession layer alone builds
    // (unverified: no Apple platform builds this project). The same standard library release on each platform.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        // The values and the engine every product shares (MockResponse, RecordedRequest,
        // RequestMatcher, Redaction, the registry and journal) with their own reference; HTTPMock
        // and MockServer re-export it.
        .library(name: "AirlockCore", targets: ["AirlockCore"]),
        // The formats, each beside the core (the core names none of them); HTTPMock and
        // MockServer re-export them.
        .library(name: "AirlockStubFiles", targets: ["AirlockStubFiles"]),
        .library(name: "AirlockCassettes", targets: ["AirlockCassettes"]),
        .library(name: "AirlockWireMock", targets: ["AirlockWireMock"]),
        // WireMock's XML matchers (equalToXml, matchesXPath) over libxml2. Apart, so that HTTPMock's
        // users never link an XML library; MockServer and `airlock serve` install it.
        .library(name: "AirlockWireMockXML", targets: ["AirlockWireMockXML"]),
        .library(name: "HTTPMock", targets: ["HTTPMock"]),
        .library(name: "HTTPMockTesting", targets: ["HTTPMockTesting"]),
        .library(name: "HTTPLogging", targets: ["HTTPLogging"]),
        .library(name: "Airgap", targets: ["Airgap"]),
        // The hooks as a shared library of their own, which Airgap passes to child processes
        // through LD_PRELOAD while the guard is active (found next to the test binary).
        .library(name: "AirgapPreload", type: .dynamic, targets: ["AirgapPreload"]),
        .library(name: "MockServer", targets: ["MockServer"]),
        // `server.httpClientConfiguration()`: AsyncHTTPClient through the server, trusting its CA.
        // Apart, so that the server and the `airlock` command do not build AsyncHTTPClient.
        .library(name: "MockServerHTTPClient", targets: ["MockServerHTTPClient"]),
        // Contract testing: an OpenAPI document checks every request and mocked answer, mocks
        // from its examples, and answers swift-openapi-generator clients in-process. Apart, so
        // that HTTPMock's users never build OpenAPIKit or Yams.
        .library(name: "AirlockOpenAPI", targets: ["AirlockOpenAPI"]),
        // The contract without the test frameworks (AirlockOpenAPI re-exports it): for servers
        // and tools, such as `airlock serve --openapi`.
        .library(name: "AirlockOpenAPICore", targets: ["AirlockOpenAPICore"]),
        // gRPC's codec (issue 50's foundation): descriptor sets, protobuf ⇄ JSON, the message
        // framing. A product only so that the fuzz package (Fuzz/, a package of its own) can reach
        // it through `@_spi(Fuzzing)`: its API is `package` until the server's gRPC is built on it.
        .library(name: "AirlockGRPCCore", targets: ["AirlockGRPCCore"]),
        // gRPC services mocked from their descriptor set: calls matched and answered by stubs
        // written in JSON, on any mock (MockServer over HTTP/2, `airlock serve --grpc`). Apart,
        // so that only its users build SwiftProtobuf.
        .library(name: "AirlockGRPC", targets: ["AirlockGRPC"]),
        // AirlockGRPCTransport: grpc-swift 2's ClientTransport answered by a mock in-process.
        // Apart, so that AirlockGRPC's users (and `airlock`) never build grpc-swift's GRPCCore.
        .library(name: "AirlockGRPCInProcess", targets: ["AirlockGRPCInProcess"]),
        .executable(name: "airlock", targets: ["AirlockCLI"]),
    ],
    traits: [
        // Off by default: a certificate authority for HTTPS costs every first build of the server
        // and the `airlock` command swift-crypto's BoringSSL and swift-certificates (about 160 s of
        // CPU). Plain HTTP, and forwarding to `https://` upstreams (NIOSSL), need no trait.
        .trait(
            name: "HTTPS",
            description: "HTTPS on MockServer and `airlock serve/record --tls`: an Airlock CA (swift-certificates, swift-crypto) signs a certificate per host."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // ManagedAtomic: the registry publishes its route snapshot through an atomic reference,
        // read by every request without a lock. Already built for SwiftNIO; small and dependency-free.
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.2.0"),
        // HTTPFields: header fields in order with repeated names, the type swift-openapi-runtime,
        // Hummingbird 2 and AsyncHTTPClient's new API share. One small module, no dependencies.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // HTTPS on the mock server: TLS (NIOSSL) with a generated CA (swift-certificates, swift-crypto).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // HTTP/2 on MockServer and `airlock serve` (h2c with prior knowledge, h2 through ALPN
        // under TLS): the server's target only, so HTTPMock and Airgap never build it.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // OpenAPI documents (3.0 and 3.1) and YAML, for AirlockOpenAPI only. OpenAPIKit's
        // ExternalLoading trait (a concurrent loader of external references) is left off: it
        // slows its build and documents are read from one file.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // `ClientTransport`, for AirlockTransport: swift-openapi-generator's clients in-process.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // A WebSocket client no one here wrote, for MockServer's WebSocket tests and the
        // WebSocket documentation samples only (test targets' dependency: no product builds it).
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.2"),
        // Protocol Buffers for AirlockGRPCCore only (its `SwiftProtobuf` library: the descriptor
        // types that read a `FileDescriptorSet`; never the protoc plugin). No other target names it.
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        // GRPCCore: the ClientTransport protocol AirlockGRPCInProcess implements (about 20 s of
        // CPU on a first build: GRPCCore and swift-collections' DequeModule), and a gRPC client no
        // one here wrote for AirlockGRPCTests.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        // HTTP2ClientTransport.Posix: that client's HTTP/2 to MockServer, for AirlockGRPCTests only.
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        // GRPCProtobuf: the generated client's message codec, for AirlockGRPCTests only.
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
        // `swift package generate-documentation --target <Product>` builds the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The base every module stands on, Airgap included: locks, host and path patterns and
        // their tries, the JSON value with its parser and writer, percent-decoding, and the
        // redaction of a URL's secrets. Foundation only; all of it `package`, none of it API.
        .target(name: "AirlockBase"),
        // Transport-agnostic core: request/response values, matchers, the DSL, the registry and
        // its queues, the journal, the exchange and redaction. No URLRequest in here, so a
        // loopback server can serve the same registry; no format either: a format registers
        // stubs with a source and priority of its own, and a recording plugs in as the handler
        // of unmatched requests.
        .target(
            name: "AirlockCore",
            dependencies: [
                "AirlockBase", "CZlib", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        // Stub files (JSON) and the response templates they and WireMock mappings use.
        .target(name: "AirlockStubFiles", dependencies: ["AirlockBase", "AirlockCore", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // Cassettes: record once, replay forever, as HAR 1.2 (read with the stub files' JSON
        // document reader, which names the place of each error).
        .target(name: "AirlockCassettes", dependencies: ["AirlockBase", "AirlockCore", "AirlockStubFiles", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // WireMock's mapping files, with their JSONPath and templates (from AirlockStubFiles),
        // and snapshots of recorded traffic (AirlockCassettes) as mappings.
        .target(name: "AirlockWireMock", dependencies: ["AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockJSONSchema", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The JSON Schema validator (drafts 4 and 2020-12, OpenAPI 3.0 and 3.1's dialects) that
        // AirlockOpenAPICore's contracts and WireMock's `matchesJsonSchema` share. Foundation and
        // AirlockBase only, so that HTTPMock builds it without OpenAPIKit or Yams.
        .target(name: "AirlockJSONSchema", dependencies: ["AirlockBase"]),
        // The XML engine AirlockWireMock's XML matchers call once installed (WireMockXML.install()).
        // libxml2 directly: FoundationXML's XPath crashes on an expression libxml2 rejects (Linux).
        .target(
            name: "AirlockWireMockXML",
            dependencies: ["AirlockStubFiles", "AirlockWireMock", .target(name: "CLibXML2", condition: .when(platforms: [.linux, .android]))]
        ),
        // libxml2 from the system (Debian: libxml2-dev; the Swift toolchain's FoundationXML links it too).
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // zlib from the system (Debian: zlib1g-dev; Apple SDKs): gzip and deflate bodies are read
        // to redact them, and decoded for URLSession clients as a real server's would be.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // The URLProtocol plumbing HTTPMock and HTTPLogging share: answering a load exactly once,
        // request bodies from streams and uploads, timers, the request timeout, forwarding, and
        // the slot classes that tell a load its owner. Not a product.
        .target(name: "URLProtocolSupport", dependencies: ["AirlockBase", "AirlockCore", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The URLSession adapter: a URLProtocol over the core, plus the documented HTTPMock API.
        .target(name: "HTTPMock", dependencies: ["AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockWireMock", "URLProtocolSupport", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // Verification for tests: count assertions and unused-stub checks for Swift Testing and
        // XCTest, for any mock (HTTPMock, MockServer) or logger; the `.httpMock` and `.cassette`
        // traits, whose mock answers `URLSession.shared` for the test's tasks.
        .target(name: "HTTPMockTesting", dependencies: ["AirlockBase", "AirlockCore", "AirlockCassettes", "HTTPMock"]),
        // HTTPLogger: a logging URLProtocol for real traffic, through swift-log.
        .target(name: "HTTPLogging", dependencies: ["AirlockBase", "AirlockCore", "URLProtocolSupport", .product(name: "Logging", package: "swift-log")]),
        // MockServer: the core served over a real loopback socket (SwiftNIO); passthrough over
        // SwiftNIO's HTTP/1.1 client pipeline. No FoundationNetworking.
        .target(
            name: "MockServer",
            dependencies: [
                "AirlockBase",
                "AirlockCore",
                "AirlockStubFiles",
                "AirlockCassettes",
                "AirlockWireMock",
                "AirlockWireMockXML",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // WebSocket stubs: the upgrade and the frames.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // HTTP/2: each stream served by the same request handler as an HTTP/1.1 request.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["HTTPS"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["HTTPS"])),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["HTTPS"])),
            ],
            // The traffic page, compiled into the module: it works offline and wherever the
            // binary is copied, with no bundle beside it.
            resources: [
                .embedInCode("Inspector/Assets/inspector.html"),
                .embedInCode("Inspector/Assets/inspector.js"),
                .embedInCode("Inspector/Assets/inspector.css"),
                .embedInCode("Inspector/Assets/favicon.svg"),
            ]
        ),
        .target(
            name: "MockServerHTTPClient",
            dependencies: [
                "AirlockBase",
                "MockServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The `airlock` command: `airlock serve stubs.json`.
        .executableTarget(
            name: "AirlockCLI",
            dependencies: [
                "AirlockBase",
                "MockServer",
                // `airlock serve --openapi spec.yaml`.
                "AirlockOpenAPICore",
                // `airlock serve --grpc services.pb`.
                "AirlockGRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `--threads`: an event loop group of the size asked for.
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Contract testing over the core: the document (OpenAPIKit, Yams), the JSON Schema validator
        // (AirlockJSONSchema, re-exported for JSONPointer), the checks on each exchange, and mocks
        // from the contract.
        .target(
            name: "AirlockOpenAPICore",
            dependencies: [
                "AirlockBase",
                "AirlockCore",
                "AirlockJSONSchema",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // What tests add: violations as Swift Testing issues and XCTest failures, and
        // AirlockTransport, which answers swift-openapi-generator clients from a mock in-process.
        .target(
            name: "AirlockOpenAPI",
            dependencies: [
                "AirlockOpenAPICore",
                "AirlockBase",
                "AirlockCore",
                "URLProtocolSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        // gRPC's codec, beside everything else (issue 50): descriptor sets (`protoc
        // --descriptor_set_out`), protobuf binary ⇄ JSON by the descriptors (proto3's JSON mapping),
        // the length-prefixed message framing, status codes, `grpc-message` and `grpc-timeout`. No
        // transport. Its product exists for the fuzz package only (see above). HTTPMock, MockServer
        // and AirlockCore do not build SwiftProtobuf.
        .target(
            name: "AirlockGRPCCore",
            dependencies: ["AirlockBase", "CZlib", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // gRPC as a format beside the core: a transcoder the core asks about each request (calls
        // read into JSON for the stubs, JSON answers written back as framed messages with the
        // status in trailers), and the API that installs it on a mock.
        .target(
            name: "AirlockGRPC",
            dependencies: ["AirlockBase", "AirlockCore", "AirlockGRPCCore", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // grpc-swift 2's ClientTransport over the mock's registry: a generated client's calls
        // answered in-process, as AirlockTransport does for swift-openapi-generator clients.
        .target(
            name: "AirlockGRPCInProcess",
            dependencies: [
                "AirlockBase", "AirlockCore", "AirlockGRPC", "AirlockGRPCCore", "URLProtocolSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
            ]
        ),
        // Airgap: a guard URLProtocol plus a C layer interposing every libc route to the network.
        .target(name: "CAirgap"),
        .target(name: "Airgap", dependencies: ["CAirgap", "AirlockBase"]),
        // The same hooks (CAirgap's source, compiled again) as a preload library for children.
        .target(name: "AirgapPreload"),
        // C helpers that take each network route the C library offers, for the escape tests.
        .target(name: "CAirgapRoutes", path: "Tests/CAirgapRoutes"),
        // ThreadSanitizer's suppressions for the test binary: grpc-swift-nio-transport's state
        // under Synchronization's Mutex, which TSan on Linux cannot see (suppressions.c says why).
        .target(name: "CTSanSuppressions", path: "Tests/CTSanSuppressions"),
        // A small program that links Airgap and tries connections, for whole-run-mode tests and
        // the escape suite (one subcommand per route).
        .executableTarget(
            name: "AirgapProbe",
            dependencies: [
                "AirlockBase",
                "Airgap",
                "CAirgapRoutes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Not products: the demo (swift run AirlockDemo) and the benchmark, which prints figures
        // (swift run -c release AirlockBenchmarks).
        .executableTarget(name: "AirlockDemo", dependencies: ["HTTPMock"]),
        .executableTarget(name: "AirlockBenchmarks", dependencies: ["AirlockBase", "HTTPMock"], path: "Benchmarks/AirlockBenchmarks"),
        // What the server's own handlers cost per request, on an EmbeddedChannel beside SwiftNIO's
        // bare pipeline (swift run -c release ServerPipeline).
        .executableTarget(
            name: "ServerPipeline",
            dependencies: [
                "MockServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/ServerPipeline"
        ),
        .testTarget(name: "AirlockCoreTests", dependencies: ["AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockWireMock", "ProcessSupport", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The codec checked against Google's Python protobuf (Tests/Tools/protobuf_tools.py, run as
        // a child) with the descriptor set of Tests/Fixtures/GRPC.
        .testTarget(name: "AirlockGRPCCoreTests", dependencies: ["AirlockBase", "AirlockGRPCCore", "ProcessSupport"]),
        // gRPC mocked over a real socket and in-process, checked with clients no one here wrote:
        // grpcio from PyPI (Tests/Tools/grpc_client.py, run as a child) and a grpc-swift 2 client
        // (code generated from Tests/Fixtures/GRPC's protos, committed: its README says how).
        .testTarget(
            name: "AirlockGRPCTests",
            dependencies: [
                "AirlockBase",
                "AirlockGRPC",
                "AirlockGRPCInProcess",
                "CTSanSuppressions",
                "HTTPMock",
                "MockServer",
                "ProcessSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Generated/README.md"]
        ),
        // Test support, not a product: children started with posix_spawn (TestProcess), because
        // Foundation's Process.run() crashes with many descriptors open (see TestProcess.swift).
        .target(name: "ProcessSupport", path: "Tests/ProcessSupport"),
        .testTarget(
            name: "MockServerTests",
            dependencies: [
                "AirlockBase",
                "MockServer",
                "AirlockWireMockXML",
                "AirlockOpenAPI",
                "MockServerHTTPClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "HTTPMock",
                "HTTPMockTesting",
                "HTTPLogging",
                "HTTPTestSupport",
                "ProcessSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
                "WebSocketTestSupport",
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["HTTPS"])),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["HTTPS"])),
            ],
            // The Python upstream the fidelity tests start as a child process.
            exclude: ["Upstream"]
        ),
        .testTarget(
            name: "AirlockOpenAPITests",
            dependencies: [
                "AirlockBase",
                "AirlockJSONSchema",
                "AirlockOpenAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                "AirlockOpenAPICore",
                "HTTPMock",
                "HTTPMockTesting",
                "MockServer",
                "HTTPLogging",
                "HTTPTestSupport",
                "ProcessSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // PetstoreClient/: a client swift-openapi-generator generated from the OpenAPI
            // Initiative's petstore-expanded.yaml once, committed (its README says how): the
            // generator's build plugin would add minutes to every first build.
            exclude: ["PetstoreClient/README.md", "PetstoreClient/openapi-generator-config.yaml"]
        ),
        .testTarget(
            name: "MockServerHTTPClientTests",
            dependencies: [
                "AirlockBase",
                "MockServer",
                "MockServerHTTPClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AirgapTests",
            dependencies: [
                "AirlockBase",
                "Airgap",
                "AirlockCore",
                "HTTPMock",
                "ProcessSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Every Swift sample of the README and the DocC articles, compiled (Snippets/), and the
        // tests that check each code block of those files is compiled there or loads.
        .testTarget(
            name: "DocumentationSnippetTests",
            dependencies: [
                "AirlockBase",
                "AirlockOpenAPI",
                "HTTPMock",
                "HTTPMockTesting",
                "HTTPLogging",
                "MockServer",
                "MockServerHTTPClient",
                "Airgap",
                "AirlockGRPC",
                "AirlockGRPCInProcess",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                "ProcessSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The WebSocket samples are run with a client no one here wrote.
                "WebSocketTestSupport",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.process("Fixtures")]
        ),
        // The websocket-kit client (a client no one here wrote) that MockServer's WebSocket tests
        // and the WebSocket documentation samples talk to the server with. Not a product.
        .target(
            name: "WebSocketTestSupport",
            dependencies: [
                "AirlockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ],
            path: "Tests/WebSocketTestSupport"
        ),
        // What the tests of HTTPMock, HTTPMockTesting and HTTPLogging share: a loopback HTTP
        // server, a refusing port, request helpers and hang guards. Not a product.
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                "AirlockBase",
                "AirlockCore",
                "HTTPMock",
                "ProcessSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/HTTPTestSupport"
        ),
        // A test target per product.
        .testTarget(
            name: "HTTPMockTests",
            dependencies: [
                "AirlockBase",
                "HTTPMock",
                "HTTPMockTesting",
                "HTTPTestSupport",
                "ProcessSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.process("Fixtures")]
        ),
        .testTarget(
            name: "HTTPMockTestingTests",
            dependencies: ["AirlockBase", "HTTPMock", "HTTPMockTesting", "HTTPTestSupport"],
            // Cassettes are read from the source tree (beside the tests), not bundled.
            exclude: ["__Cassettes__"]
        ),
        .testTarget(
            name: "HTTPLoggingTests",
            dependencies: [
                "AirlockBase",
                "HTTPLogging",
                "HTTPMock",
                "HTTPTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ]
)
