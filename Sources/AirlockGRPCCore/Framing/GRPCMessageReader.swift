/// Reads gRPC's length-prefixed messages from bytes that arrive in pieces of any size, as from a
/// socket: a small state machine whose events return what to do.
///
/// ```swift
/// var reader = GRPCMessageReader(configuration: .init(encoding: .gzip))
/// reader.append(piece)
/// loop: while true {
///     switch reader.next() {
///     case .message(let bytes): handle(bytes)
///     case .needMoreBytes: break loop
///     case .fail(let error): answer(error.status, error.description); return
///     }
/// }
/// // at the end of the stream:
/// if case .fail(let error) = reader.end() { … }   // the stream stopped inside a message
/// ```
///
/// A length over ``Configuration/maximumMessageLength`` fails before its bytes are waited for, so
/// a peer cannot make the reader hold more than the limit. Once failed, the reader stays failed.
package struct GRPCMessageReader: Sendable {
    /// What the reader accepts.
    package struct Configuration: Sendable {
        /// The longest message accepted, compressed or decompressed (gRPC's default: 4 MiB).
        package var maximumMessageLength: Int
        /// The call's `grpc-encoding`: identity refuses compressed messages; gzip reads them;
        /// any other refuses them as unsupported.
        package var encoding: GRPCMessageEncoding

        /// - Parameters:
        ///   - maximumMessageLength: The longest message accepted (default 4 MiB).
        ///   - encoding: The call's `grpc-encoding` (default identity).
        package init(maximumMessageLength: Int = 4 * 1024 * 1024, encoding: GRPCMessageEncoding = .identity) {
            self.maximumMessageLength = maximumMessageLength
            self.encoding = encoding
        }
    }

    /// What to do after ``next()``.
    package enum NextAction: Sendable, Equatable {
        /// A whole message (decompressed).
        case message([UInt8])
        /// Nothing whole yet: append more bytes.
        case needMoreBytes
        /// The stream is broken: end the call with the error's status.
        case fail(GRPCFramingError)
    }

    /// What to do at the end of the stream (``end()``).
    package enum EndAction: Sendable, Equatable {
        /// The stream ended between messages.
        case finished
        /// It ended inside one, or after an error.
        case fail(GRPCFramingError)
    }

    private enum State: Sendable {
        case prefix
        case message(compressed: Bool, length: Int)
        case failed(GRPCFramingError)
    }

    /// The reader's configuration.
    package let configuration: Configuration
    private var state = State.prefix
    private var buffer: [UInt8] = []
    private var start = 0

    /// A reader with this configuration.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Bytes as they arrived.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if case .failed = state { return }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or what stops it.
    package mutating func next() -> NextAction {
        while true {
            switch state {
            case .failed(let error):
                return .fail(error)
            case .prefix:
                guard buffer.count - start >= 5 else { return .needMoreBytes }
                let flag = buffer[start]
                let length = UInt32(buffer[start + 1]) << 24 | UInt32(buffer[start + 2]) << 16 | UInt32(buffer[start + 3]) << 8 | UInt32(buffer[start + 4])
                guard flag <= 1 else { return fail(.badFlag(flag)) }
                guard Int(length) <= configuration.maximumMessageLength else {
                    return fail(.tooLong(length: length, limit: configuration.maximumMessageLength))
                }
                if flag == 1 {
                    if configuration.encoding == .identity { return fail(.compressedWithoutEncoding) }
                    if configuration.encoding != .gzip { return fail(.unsupportedEncoding(configuration.encoding.name)) }
                }
                start += 5
                state = .message(compressed: flag == 1, length: Int(length))
            case .message(let compressed, let length):
                guard buffer.count - start >= length else { return .needMoreBytes }
                let payload = Array(buffer[start..<start + length])
                start += length
                state = .prefix
                if compressed {
                    guard let message = GRPCMessageEncoding.gzipDecompress(payload, limit: configuration.maximumMessageLength) else {
                        return fail(.badCompressedData)
                    }
                    return .message(message)
                }
                return .message(payload)
            }
        }
    }

    /// The stream ended: fine between messages, an error inside one.
    package func end() -> EndAction {
        switch state {
        case .failed(let error):
            return .fail(error)
        case .prefix:
            let left = buffer.count - start
            return left == 0 ? .finished : .fail(.truncated(expected: max(5, left + 1), received: left))
        case .message(_, let length):
            return .fail(.truncated(expected: 5 + length, received: 5 + buffer.count - start))
        }
    }

    private mutating func fail(_ error: GRPCFramingError) -> NextAction {
        state = .failed(error)
        buffer = []
        start = 0
        return .fail(error)
    }
}
