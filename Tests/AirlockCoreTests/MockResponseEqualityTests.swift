@testable import AirlockCore
import Foundation
import HTTPTypes
import Testing

/// `==` is true to its documentation: two responses are equal when everything they serve is,
/// the status line's reason and whether a recorded body is kept decoded included.
struct MockResponseEqualityTests {
    @Test func aDifferentReasonPhraseIsADifferentResponse() {
        let fields: HTTPFields = [.contentType: "text/plain"]
        let plain = MockResponse(body: .data(Data("hi".utf8)), status: .ok, lifetime: .single, delivery: .instant, headerFields: fields)
        let sameAgain = MockResponse(body: .data(Data("hi".utf8)), status: .ok, lifetime: .single, delivery: .instant, headerFields: fields)
        let reason = MockResponse(body: .data(Data("hi".utf8)), status: .ok, reasonPhrase: "Fine", lifetime: .single, delivery: .instant, headerFields: fields)
        #expect(plain == sameAgain)
        #expect(plain != reason)
        #expect(Set([plain, sameAgain, reason]).count == 2)
    }

    @Test func aBodyKeptDecodedIsADifferentResponse() {
        let gzip: HTTPFields = [.contentEncoding: "gzip"]
        let decoded = MockResponse(replaying: Data("hi".utf8), status: .ok, lifetime: .single, headerFields: gzip, bodyIsDecoded: true)
        let encoded = MockResponse(replaying: Data("hi".utf8), status: .ok, lifetime: .single, headerFields: gzip, bodyIsDecoded: false)
        #expect(decoded.bodyIsDecoded && !encoded.bodyIsDecoded)
        #expect(decoded != encoded)
    }
}
