@_spi(AirlockTransport) import AirlockCore
import Foundation

extension ResolvedExchange {
    /// The text of the stubbed response a registry answered with; `nil` when no stub answered.
    /// One place for the core's tests to read an answer, whatever shape the exchange takes.
    var stubbedText: String? {
        guard stub != nil, case .answer(.respond(let planned)) = action, let data = planned.response.body.bytesInMemory else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
