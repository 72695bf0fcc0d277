// libFuzzer harness: arbitrary bytes as an OpenAPI document (YAML or JSON), loaded as a contract
// and served.
//
// Never crash, never hang. Every input is either refused with `OpenAPIContract.LoadError` (the
// only error `init(data:source:)` throws) whose message can be built, or it loads: its operations
// are listed, the contract answers as a mock (`registerStubs(from:)`, what `airlock serve
// --openapi` serves), and each of its first operations is sent a request made from its path
// template and method. The responder checks that request against the contract (parameters,
// body, security) and answers with the operation's example or one built from its schema, or a
// problem listing the violations.
//
// Requests go through `@_spi(Fuzzing) MockRegistry.respond(method:target:host:headers:body:)`,
// which plans the response (running the contract's responder) without a transport or waiting.
import AirlockOpenAPICore
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// One mock for the whole run, cleared before each input; replaced now and then because its
/// list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenAPI(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let contract: OpenAPIContract
    do {
        contract = try OpenAPIContract(data: data, source: "fuzz-input.yaml")
    } catch {
        // Refused (typed throws: a LoadError); its message quotes the place and the problem.
        _ = error.description
        return 0
    }
    inputs += 1
    if inputs % 500 == 0 { mock = HTTPMock() }
    mock.clearQueues()
    let rejected = silencingStandardError { mock.registerStubs(from: contract) }
    for error in rejected { _ = error.description }
    _ = contract.operations.map(\.description)

    for operation in contract.operations.prefix(6) {
        // `{id}` in the template becomes a value; the body is JSON, as most operations take.
        let path = operation.path.replacingOccurrences(of: #"\{[^}/]*\}"#, with: "1", options: .regularExpression)
        let target = (path.hasPrefix("/") ? path : "/" + path) + "?limit=1"
        _ = mock.registry.respond(
            method: operation.method.uppercased(),
            target: target,
            host: "fuzz.example",
            headers: ["Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer token"],
            body: Data(#"{"id":1,"name":"Alice","tags":["a"]}"#.utf8)
        )
    }
    mock.clearRequests()
    return 0
}
