import AirlockOpenAPI
import Foundation
import Testing

/// Reading documents: the OpenAPI Initiative's examples load; bad input is refused, naming the
/// document, the place and the fix, and never crashes or hangs.
@Suite struct ContractLoadingTests {
    @Test(arguments: [
        ("v3.0/api-with-examples.yaml", 2), ("v3.0/callback-example.yaml", 1), ("v3.0/link-example.yaml", 6),
        ("v3.0/petstore-expanded.yaml", 4), ("v3.0/petstore.yaml", 3), ("v3.0/uspto.yaml", 3),
        ("v3.1/non-oauth-scopes.yaml", 1), ("v3.1/webhook-example.yaml", 0),
    ])
    func everyExampleLoads(path: String, operations: Int) throws {
        let contract = try Examples.contract(path)
        #expect(contract.operations.count == operations)
        #expect(!contract.title.isEmpty)
    }

    @Test func jsonAndYAMLReadTheSame() throws {
        let yaml = """
        openapi: 3.1.0
        info: {title: Tiny, version: "1"}
        paths:
          /things/{id}:
            get:
              operationId: getThing
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses: {"200": {description: ok}}
        """
        let json = #"{"openapi": "3.1.0", "info": {"title": "Tiny", "version": "1"}, "paths": {"/things/{id}": {"get": {"operationId": "getThing", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}], "responses": {"200": {"description": "ok"}}}}}}"#
        let fromYAML = try OpenAPIContract(data: Data(yaml.utf8), source: "tiny.yaml")
        let fromJSON = try OpenAPIContract(data: Data(json.utf8), source: "tiny.json")
        #expect(fromYAML.operations == fromJSON.operations)
        #expect(fromYAML.operations.map(\.description) == ["getThing (GET /things/{id})"])
    }

    @Test func aMissingFileNamesItsPath() {
        let error = #expect(throws: OpenAPIContract.LoadError.self) {
            try OpenAPIContract(contentsOf: URL(fileURLWithPath: "/nonexistent/openapi.yaml"))
        }
        #expect(error?.code == .unreadable)
        #expect(error?.source == "/nonexistent/openapi.yaml")
        #expect(error?.description.hasPrefix("/nonexistent/openapi.yaml: the file cannot be read") == true)
    }

    @Test(arguments: [
        ("openapi: 3.1.0\ninfo: [unclosed\n", "it is not valid YAML: line 3, column 1: while parsing a flow sequence", OpenAPIContract.LoadError.Code.invalidSyntax),
        (#"{"openapi": "3.1.0", "info": }"#, "it is not valid JSON: line 1, column 30", .invalidSyntax),
        ("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", "it is a Swagger 2.0 document", .unsupportedVersion),
        ("openapi: 2.5.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "its `openapi` version is 2.5.0", .unsupportedVersion),
        ("- just\n- a list\n", "the document is not an object", .notAnOpenAPIDocument),
        ("", "the document is empty", .notAnOpenAPIDocument),
        ("info: {title: t, version: '1'}\npaths: {}\n", "it has no `openapi` field", .notAnOpenAPIDocument),
        ("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {$ref: '#/components/responses/Nope'}\n", "the $ref at #/paths/~1a/get/responses/200/$ref points at #/components/responses/Nope, which the document does not have", .invalidReference),
        ("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: 'other.yaml#/components/parameters/P'}]\n      responses: {'200': {description: ok}}\n", "the $ref at #/paths/~1a/get/parameters/0/$ref points into another file (other.yaml#/components/parameters/P)", .externalReference),
        ("openapi: 3.0.3\ninfo: {title: t}\npaths: {}\n", "it is not a valid OpenAPI document", .invalidDocument),
    ])
    func badDocumentsAreRefusedNamingTheProblem(text: String, expected: String, code: OpenAPIContract.LoadError.Code) {
        let error = #expect(throws: OpenAPIContract.LoadError.self) {
            try OpenAPIContract(data: Data(text.utf8), source: "bad.yaml")
        }
        #expect(error?.code == code, "\(error?.description ?? "no error")")
        #expect(error?.source == "bad.yaml")
        #expect(error?.problem.contains(expected) == true, "\(error?.description ?? "no error")")
        #expect(error?.fix.isEmpty == false)
    }

    /// "A billion laughs": aliases that would expand to 10⁹ values are refused, quickly.
    @Test func aliasesThatExpandWithoutEndAreRefused() {
        var yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nx-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...8 {
            yaml += "x-a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        yaml += "paths: {}\n"
        let error = #expect(throws: OpenAPIContract.LoadError.self) {
            try OpenAPIContract(data: Data(yaml.utf8), source: "laughs.yaml")
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.problem.contains("expands to more than") == true, "\(error?.description ?? "no error")")
    }

    @Test func textThatIsNotUTF8IsInvalidSyntax() {
        let error = #expect(throws: OpenAPIContract.LoadError.self) {
            try OpenAPIContract(data: Data([0x6F, 0x70, 0xFF, 0xFE]), source: "bad.yaml")
        }
        #expect(error?.code == .invalidSyntax)
        #expect(error?.description == "bad.yaml: it is not UTF-8 text. Fix: save the document as UTF-8.")
    }

    @Test func codesCompareAndNameThemselves() {
        #expect(OpenAPIContract.LoadError.Code.externalReference == .externalReference)
        #expect(OpenAPIContract.LoadError.Code.externalReference != .invalidReference)
        #expect(OpenAPIContract.LoadError.Code.notAnOpenAPIDocument.description == "notAnOpenAPIDocument")
    }
}
