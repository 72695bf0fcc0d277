// swift-tools-version: 6.2
// Airgap without its socket layer: the URLSession layer alone, as it is on platforms without one.
// Build and test it with the socket layer compiled out (CI does, in .ci/run):
//
//     swift test --package-path Tests/AirgapPortable \
//         -Xswiftc -DAIRGAP_NO_SOCKET_LAYER -Xcc -DAIRGAP_NO_SOCKET_LAYER
//
// A package of its own so that this build compiles only Airgap and what it needs (AirlockBase),
// not the whole of Airlock and its test targets. Its tests are the files of
// Tests/AirgapTests linked here, which need nothing but Airgap's public API.
import PackageDescription

let package = Package(
    name: "AirgapPortable",
    dependencies: [
        .package(name: "Airlock", path: "../.."),
    ],
    targets: [
        .testTarget(
            name: "AirgapPortableTests",
            dependencies: [.product(name: "Airgap", package: "Airlock")],
            path: "Tests/AirgapPortableTests"
        ),
    ]
)
