import AirlockBase
import Foundation

extension MockRegistry {
    /// The one `Value` this registry keeps for a module above the core, made by `make` on first
    /// use: state a format keeps per registry beside the stubs it registers (its own documents
    /// by ``Registration/stubID``, say), so that it lives as long as the registry and every
    /// transport sharing the registry sees the same. The core never reads it.
    ///
    /// Keep the value's own state behind a lock of its own (`Locked`); it is never touched under
    /// the registry's.
    package func attachment<Value: AnyObject & Sendable>(_ type: Value.Type, makingWith make: () -> Value) -> Value {
        attachments.withLock { attachments in
            let key = ObjectIdentifier(type)
            if let existing = attachments[key] {
                // Stored under its own type's identifier just below: always a `Value`.
                return unsafeDowncast(existing, to: Value.self)
            }
            let made = make()
            attachments[key] = made
            return made
        }
    }
}
