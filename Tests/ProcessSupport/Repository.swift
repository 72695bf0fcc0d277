import Foundation

/// The repository the tests run in, found from this file's place in it. Every file a test reads
/// lies inside it: the clone is the whole project, and nothing beside it is read.
package enum Repository {
    /// The repository's root folder (the one holding `Package.swift`).
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Test data vendored under `Tests/Fixtures/`, each folder with its licence and source.
    package static func fixture(_ relativePath: String) -> URL {
        root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relativePath)
    }

    /// The OpenAPI Initiative's example documents (`Tests/Fixtures/OpenAPIExamples`, Apache-2.0).
    package static let openAPIExamples = fixture("OpenAPIExamples")

    /// The official JSON-Schema-Test-Suite (`Tests/Fixtures/JSONSchemaTestSuite`, MIT).
    package static let jsonSchemaTestSuite = fixture("JSONSchemaTestSuite")
}
