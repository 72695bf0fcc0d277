// libFuzzer harness: a response template and a request, rendered.
//
// The input is a template, then optionally a line holding only `----`, then a request:
//
//     template text (any number of lines)
//     ----
//     METHOD target            (origin form with a query, or absolute form)
//     Name: value              (headers, until an empty line)
//
//     body
//
// Without the separator the request is `POST /users/42/orders?full=1&tag=a&tag=b` with a JSON
// body and a few headers. Never crash, never hang: the template either throws the template
// parser's `ParseError` (with a message: what is wrong and what would be valid) or parses, and
// then renders for the request with every escaping (as is, as JSON string content, as
// Handlebars escapes). A template without an expression renders as itself, and one rendered as
// JSON string content, given no text of its own, reads back as a JSON string.
//
// Reached through `@_spi(Fuzzing) FuzzedTemplate`
// (Sources/AirlockCore/Templates/ResponseTemplate+Fuzzing.swift).
import FuzzSupport

@_spi(Fuzzing) import AirlockStubFiles
import Foundation

private let defaultRequest = """
    POST /users/42/orders?full=1&tag=a&tag=b
    Host: api.example.com
    Content-Type: application/json
    X-Request-Id: abc-123
    X-Request-Id: def-456

    {"user":{"name":"Alice","tags":["a","b"],"id":42},"items":[{"sku":"x1","qty":2}],"note":"<b>\\"hi\\"</b>\\n"}
    """

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplates(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
    let (templateText, requestText) = split(input)
    let template: FuzzedTemplate
    do {
        template = try FuzzedTemplate(templateText)
    } catch {
        // Typed throws: the template parser's error, whose message is built here.
        guard !error.problem.isEmpty, !error.expected.isEmpty else { fatalError("a template error without a message: \(error)") }
        _ = error.description
        return 0
    }
    let request = parse(requestText)
    for escaping in FuzzedTemplate.Escaping.allCases {
        guard let text = template.render(method: request.method, target: request.target, host: request.host, headers: request.headers, body: request.body, escaping: escaping) else {
            return 0  // A request target the server would refuse: nothing to render for.
        }
        if template.isConstant, text != templateText {
            fatalError("a template without an expression renders as \(text.debugDescription), not as itself")
        }
    }
    // `{{…}}` alone, inserted as JSON string content, is a JSON string's content.
    if templateText.hasPrefix("{{"), templateText.hasSuffix("}}"), templateText.utf8.count > 4,
       !templateText.dropFirst(2).dropLast(2).contains("{{"), !templateText.dropFirst(2).dropLast(2).contains("}}"),
       let text = template.render(method: request.method, target: request.target, host: request.host, headers: request.headers, body: request.body, escaping: .jsonString)
    {
        let quoted = Data(("\"" + text + "\"").utf8)
        guard (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) is String else {
            fatalError("\(templateText) rendered as JSON string content is not one: \(text.debugDescription)")
        }
    }
    return 0
}

/// The template, and the request's text after a line `----` (nil without one).
private func split(_ input: String) -> (template: String, request: String?) {
    guard let separator = input.range(of: "\n----\n") else { return (input, nil) }
    return (String(input[..<separator.lowerBound]), String(input[separator.upperBound...]))
}

/// A request line, headers and a body, leniently: what is missing is the default's.
private func parse(_ text: String?) -> (method: String, target: String, host: String?, headers: [String: String], body: Data?) {
    let text = text ?? defaultRequest
    let head: Substring
    var body: Data?
    if let blank = text.range(of: "\n\n") {
        head = text[..<blank.lowerBound]
        body = Data(text[blank.upperBound...].utf8)
    } else {
        head = Substring(text)
    }
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
    let requestLine = (lines.next() ?? "").split(separator: " ", maxSplits: 1)
    let method = requestLine.first.map(String.init) ?? "GET"
    let target = requestLine.count > 1 ? String(requestLine[1]) : "/"
    var headers: [String: String] = [:]
    var host: String?
    while let line = lines.next() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if name.lowercased() == "host" { host = value } else { headers[name, default: value] = value }
    }
    if body?.isEmpty == true { body = nil }
    return (method, target, host, headers, body)
}
