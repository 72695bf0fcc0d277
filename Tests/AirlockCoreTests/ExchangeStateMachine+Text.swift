@_spi(AirlockTransport) import AirlockCore
import Foundation

extension ExchangeStateMachine {
    /// The text of the stubbed response a registry answered with; `nil` when no stub answered.
    /// One place for the core's tests to read an answer, whatever shape the exchange takes.
    var stubbedText: String? {
        guard stub != nil, let data = plannedResponse?.body.bytesInMemory else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
