/// The secret parts of URLs, as byte ranges: the user-info password and the values of secret
/// query and fragment items. Also finds URLs in free text.
package enum URLParts {
    /// The ranges to replace in the URL `bytes[range]`: its user-info password
    /// (`scheme://user:password@host`) and the value of each `name=value` item of its query and
    /// fragment whose percent-decoded name is secret (an empty value too: an empty range).
    package static func secretRanges(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, passwords: Bool, isSecretItem: (String) -> Bool) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let end = range.upperBound
        if passwords, let separator = nextSchemeSeparator(in: bytes, from: range.lowerBound, end: end) {
            let authorityStart = separator + 3
            let authorityEnd = firstIndex(in: bytes, authorityStart..<end) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? end
            if let at = (authorityStart..<authorityEnd).last(where: { bytes[$0] == UInt8(ascii: "@") }),
                let colon = firstIndex(in: bytes, authorityStart..<at, where: { $0 == UInt8(ascii: ":") })
            {
                ranges.append(colon + 1..<at)
            }
        }
        guard var marker = firstIndex(in: bytes, range, where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return ranges }
        // The query, then the fragment: each an `&`-separated list of `name=value` items.
        while marker < end {
            let bodyStart = marker + 1
            let bodyEnd = bytes[marker] == UInt8(ascii: "?") ? (firstIndex(in: bytes, bodyStart..<end) { $0 == UInt8(ascii: "#") } ?? end) : end
            var itemStart = bodyStart
            while true {
                let itemEnd = firstIndex(in: bytes, itemStart..<bodyEnd) { $0 == UInt8(ascii: "&") } ?? bodyEnd
                if let equals = firstIndex(in: bytes, itemStart..<itemEnd, where: { $0 == UInt8(ascii: "=") }),
                    isSecretItem(PercentDecoding.decode(Substring(String(decoding: bytes[itemStart..<equals], as: UTF8.self))))
                {
                    ranges.append(equals + 1..<itemEnd)
                }
                if itemEnd >= bodyEnd { break }
                itemStart = itemEnd + 1
            }
            marker = bodyEnd
        }
        return ranges
    }

    /// The URLs (`scheme://…`) in free text: each up to white space, a quote or an angle bracket,
    /// without trailing punctuation (`.`, `,`, `;`, `)`, `}` …).
    package static func urls(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        var urls: [Range<Int>] = []
        var index = range.lowerBound
        let end = range.upperBound
        while let separator = nextSchemeSeparator(in: bytes, from: index, end: end) {
            index = separator + 3
            guard let start = schemeStart(in: bytes, before: separator, from: range.lowerBound) else { continue }
            var cursor = index
            while cursor < end, !endsURL(bytes[cursor]), RedactionBytes.whitespaceLength(bytes, at: cursor) == 0 { cursor += 1 }
            while cursor > index, isTrailingPunctuation(bytes[cursor - 1]) { cursor -= 1 }
            urls.append(start..<cursor)
            index = max(index, cursor)
        }
        return urls
    }

    private static func endsURL(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "\\")
    }

    private static func isTrailingPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "!"), UInt8(ascii: "?"),
            UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
            true
        default: false
        }
    }

    /// Where the next `://` starts, from `start`.
    package static func nextSchemeSeparator(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int? {
        var index = start
        while index + 3 <= end {
            if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Where the scheme before the `://` at `separator` starts: the first letter of the run of
    /// scheme characters (`[A-Za-z0-9+.-]`) just before it; `nil` when there is none.
    package static func schemeStart(in bytes: UnsafeBufferPointer<UInt8>, before separator: Int, from lowerLimit: Int) -> Int? {
        var start = separator
        while start > lowerLimit {
            let byte = bytes[start - 1]
            guard RedactionBytes.isLetter(byte) || RedactionBytes.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "-")
            else { break }
            start -= 1
        }
        return firstIndex(in: bytes, start..<separator, where: RedactionBytes.isLetter)
    }

    private static func firstIndex(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, where predicate: (UInt8) -> Bool) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if predicate(bytes[index]) { return index }
            index += 1
        }
        return nil
    }
}
