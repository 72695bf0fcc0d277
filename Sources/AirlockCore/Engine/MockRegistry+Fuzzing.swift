import AirlockBase
import Foundation

extension MockRegistry {
    /// Resolves a request given as a server receives it — a request target (origin form, absolute
    /// form or `*`) and a `Host` header — and plans its response, without a transport and without
    /// waiting out delays: the way the fuzz harnesses in `Fuzz/` reach the core at thousands of
    /// inputs a second. Not API: the `Fuzzing` SPI may change at any time.
    /// - Returns: The planned status, or `nil` when the target cannot be parsed or the plan is a
    ///   fault, an error or forwarding.
    @_spi(Fuzzing)
    public func respond(method: String, target: String, host: String?, headers: [String: String] = [:], body: Data? = nil) -> Int? {
        guard var request = IncomingRequest(method: method, target: target, hostHeader: host) else { return nil }
        request.headers = headers.map { (name: $0.key, value: $0.value) }
        request.body = body
        return resolve(request, for: .socket).plannedResponse?.status.code
    }
}
