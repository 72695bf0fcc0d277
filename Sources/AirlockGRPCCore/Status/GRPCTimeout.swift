/// A `grpc-timeout` header: at most 8 digits and a unit (`H`, `M`, `S`, `m`, `u`, `n`), as the
/// gRPC over HTTP/2 spec writes it (`100m` is 100 ms).
package struct GRPCTimeout: Sendable, Hashable, CustomStringConvertible {
    /// The timeout in nanoseconds.
    package let nanoseconds: Int64

    /// A timeout of this many nanoseconds (negative values count as zero).
    package init(nanoseconds: Int64) {
        self.nanoseconds = max(0, nanoseconds)
    }

    private static let units: [(Character, Int64)] = [
        ("n", 1), ("u", 1000), ("m", 1_000_000), ("S", 1_000_000_000), ("M", 60_000_000_000), ("H", 3_600_000_000_000),
    ]

    /// Reads a header value; `nil` unless it is 1 to 8 digits and one of the six units.
    package init?(headerValue: String) {
        guard let unitCharacter = headerValue.last, let unit = Self.units.first(where: { $0.0 == unitCharacter })?.1 else { return nil }
        let digits = headerValue.dropLast()
        guard (1...8).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits) else { return nil }
        self.nanoseconds = value * unit
    }

    /// The header value: the finest unit whose count fits 8 digits (rounded up, never shorter).
    package var headerValue: String {
        for (character, unit) in Self.units {
            let count = (nanoseconds + unit - 1) / unit
            if count <= 99_999_999 { return "\(count)\(character)" }
        }
        return "99999999H"
    }

    package var description: String { headerValue }
}
