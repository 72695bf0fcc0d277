import AirlockBase
import Foundation

extension MockResponse {
    /// Where a stub that proxies sends a request — WireMock's `proxyBaseUrl` — and how the
    /// request's header fields change on the way (`additionalProxyRequestHeaders`,
    /// `removeProxyRequestHeaders`).
    ///
    /// The core decides the forwarded request once, when it plans the exchange
    /// (``forwarding(_:recorded:)``): every transport sends the ``ForwardTarget`` it gets as it is.
    package struct Proxy: Hashable, Sendable {
        /// The base URL the request's path and query are appended to: `http://localhost:8081/api`.
        package let baseURL: String
        /// A prefix taken off the request's path first (WireMock's `proxyUrlPrefixToRemove`).
        package let removingPrefix: String?
        /// The names of the request's fields that are not sent on, lowercased.
        package let removingHeaders: Set<String>
        /// Fields sent on in place of any the request has of the same name, in order.
        package let addingHeaders: [AddedHeader]
        /// When the base URL is a template (WireMock's templated `proxyBaseUrl`), what renders it
        /// for each request; ``baseURL`` is then the template's text.
        package let baseTemplate: RequestTemplate?

        /// A proxy.
        /// - Parameters:
        ///   - baseURL: Where the request goes; its path and query are appended.
        ///   - removingPrefix: A prefix taken off the request's path first.
        ///   - removingHeaders: Names of the request's fields not to send on (any case).
        ///   - addingHeaders: Fields to send on, each in place of the request's of the same name.
        ///   - baseTemplate: What renders the base URL for each request, when it is a template.
        package init(baseURL: String, removingPrefix: String?, removingHeaders: [String] = [], addingHeaders: [AddedHeader] = [], baseTemplate: RequestTemplate? = nil) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.baseTemplate = baseTemplate
            self.removingPrefix = removingPrefix
            self.removingHeaders = Set(removingHeaders.map { $0.lowercased() })
            self.addingHeaders = addingHeaders
        }

        /// The URL a request goes to: the base, then the request's path (as sent, less the
        /// prefix) and query.
        package func target(for request: IncomingRequest) -> String {
            target(for: request, base: baseURL)
        }

        private func target(for request: IncomingRequest, base baseURL: String) -> String {
            let target = RequestTarget(url: request.url)
            var path = target.path
            if let removingPrefix, !removingPrefix.isEmpty, path.hasPrefix(removingPrefix) {
                path = String(path.dropFirst(removingPrefix.count))
                if !path.hasPrefix("/") { path = "/" + path }
            }
            return baseURL + path + (target.query.map { "?" + $0 } ?? "")
        }

        /// The request as it is sent on: its URL, and its fields in order without `Host` (the
        /// transport's client sets it from the URL) and without the removed ones, then the added
        /// ones (each replacing the request's of the same name, whatever their case), their
        /// templates rendered for this request.
        /// - Parameters:
        ///   - request: The request as it came.
        ///   - recorded: The request as templates read it; made only when one is rendered.
        /// - Returns: The forwarded request, or why it cannot be sent: an added value rendered
        ///   into something a header cannot carry (a line break from the request).
        package func forwarding(_ request: IncomingRequest, recorded: @autoclosure () -> RecordedRequest) -> Result<ForwardTarget, ForwardProblem> {
            var headers: [(name: String, value: String)] = []
            let replaced = Set(addingHeaders.map { $0.name.lowercased() })
            for field in request.headers {
                let name = field.name.lowercased()
                guard name != "host", !removingHeaders.contains(name), !replaced.contains(name) else { continue }
                headers.append(field)
            }
            var rendering: RecordedRequest?
            var base = baseURL
            if let baseTemplate {
                rendering = recorded()
                let rendered = baseTemplate.render(rendering!).trimmingCharacters(in: .whitespaces)
                guard let components = URLComponents(string: rendered), let scheme = components.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", components.host?.isEmpty == false, components.query == nil
                else {
                    return .failure(
                        ForwardProblem(
                            description: "the proxy base URL template \"\(baseURL)\" rendered \"\(rendered)\", which is not an http or https base URL. "
                                + "Send the request with the value the template reads, or fix the template so that it renders one such as http://localhost:8081."
                        )
                    )
                }
                base = rendered.hasSuffix("/") ? String(rendered.dropLast()) : rendered
            }
            for added in addingHeaders {
                let value: String
                switch added.value {
                case .text(let text):
                    value = text
                case .template(let template):
                    if rendering == nil { rendering = recorded() }
                    value = template.render(rendering!)
                    if let problem = ResponseLimits.headerProblem(name: added.name, value: value) {
                        return .failure(ForwardProblem(description: "the proxied request's added header \(added.name) cannot be sent: \(problem). Fix the template so that it renders one line."))
                    }
                }
                headers.append((added.name, value))
            }
            return .success(ForwardTarget(url: target(for: request, base: base), headers: headers))
        }
    }

    /// A header field a proxying stub adds to the request it sends on.
    package struct AddedHeader: Hashable, Sendable {
        /// Its value: text, or a template rendered for each request.
        package enum Value: Hashable, Sendable {
            /// The value as written.
            case text(String)
            /// A template rendered for each request (WireMock's `response-template` transformer).
            case template(RequestTemplate)
        }

        /// The field's name, as sent.
        package let name: String
        /// Its value.
        package let value: Value

        /// A field to add.
        package init(name: String, value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// Text made from a request — a template's rendering — compared by identity.
    package final class RequestTemplate: Hashable, Sendable {
        private let make: @Sendable (RecordedRequest) -> String

        /// A template that `make` renders.
        package init(_ make: @escaping @Sendable (RecordedRequest) -> String) {
            self.make = make
        }

        /// The text for a request.
        package func render(_ request: RecordedRequest) -> String { make(request) }

        package static func == (lhs: RequestTemplate, rhs: RequestTemplate) -> Bool { lhs === rhs }

        package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }
}

/// A request a stub sends on to another server (WireMock's `proxyBaseUrl`), as the core decided
/// it: where it goes and the header fields it carries. A transport sends these fields, less those
/// of its own connection (`Connection`, `Transfer-Encoding`…), with the request's method and body.
package struct ForwardTarget: Sendable {
    /// The absolute URL.
    package let url: String
    /// The header fields, in order; no `Host` (the client sets it from ``url``).
    package let headers: [(name: String, value: String)]

    /// A forwarded request.
    package init(url: String, headers: [(name: String, value: String)]) {
        self.url = url
        self.headers = headers
    }
}

/// Why a proxying stub's request cannot be sent on; the exchange fails with this message.
package struct ForwardProblem: Error, Sendable, CustomStringConvertible {
    /// What went wrong and how to fix it.
    package let description: String
}
