import Foundation

extension WebSocketScript {
    /// Plays a script on one connection: told when the connection opens and each message the
    /// client sends, it says what to send, when to close and how long to wait between. It
    /// touches no connection and keeps no time; a transport performs its actions, in order, each
    /// after the waits before it (those of earlier events included).
    package struct Player: Sendable {
        /// What the transport does next.
        package enum Action: Hashable, Sendable {
            /// Sends this message to the client.
            case send(WebSocketMessage)
            /// Sends a close frame with this code and reason, then closes.
            case close(code: UInt16, reason: String)
            /// Waits this many seconds before the actions after it (those of later events too).
            case wait(TimeInterval)
        }

        private let steps: [Step]
        /// The step the player is at.
        private var index = 0
        /// How many more messages the current echo step sends back (`nil`: every one).
        private var echoesLeft: Int?
        /// Whether the script closed the connection.
        private(set) var isClosed = false

        package init(_ script: WebSocketScript) {
            steps = script.steps
        }

        /// The connection opened: the steps up to the first that waits for the client.
        package mutating func opened() -> [Action] {
            run()
        }

        /// The client sent `message`: what it sets off.
        package mutating func received(_ message: WebSocketMessage) -> [Action] {
            guard !isClosed, index < steps.count else { return [] }
            switch steps[index] {
            case .expect(let matcher):
                guard matcher.matches(message) else { return [] }
                index += 1
                return run()
            case .echo:
                var actions: [Action] = [.send(message)]
                if let left = echoesLeft {
                    echoesLeft = left - 1
                    if left - 1 <= 0 {
                        echoesLeft = nil
                        index += 1
                        actions += run()
                    }
                }
                return actions
            case .echoUntilClosed:
                return [.send(message)]
            case .send, .close, .wait:
                // `run` never stops at these.
                return []
            }
        }

        /// Runs the steps from the current one until one waits for the client or the script ends.
        private mutating func run() -> [Action] {
            var actions: [Action] = []
            while !isClosed, index < steps.count {
                switch steps[index] {
                case .send(let message):
                    actions.append(.send(message))
                    index += 1
                case .close(let code, let reason):
                    actions.append(.close(code: code, reason: reason))
                    isClosed = true
                    index += 1
                case .wait(let seconds):
                    actions.append(.wait(seconds))
                    index += 1
                case .expect:
                    return actions
                case .echo(let count):
                    guard count > 0 else {
                        index += 1
                        continue
                    }
                    echoesLeft = count
                    return actions
                case .echoUntilClosed:
                    return actions
                }
            }
            return actions
        }
    }
}
