import AirlockBase

/// A stub that was rejected when it was registered, with what was wrong and how to fix it.
///
/// Registration never crashes: a stub with an invalid host or path pattern, or an invalid
/// lifetime or delay, is left out, reported on standard error, listed in the mock's
/// `registrationErrors`, and named in the message of any request that then goes unmatched.
public struct RegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stub as it was written, such as `host "api.example.com", path "users"`.
    public let stub: String
    /// What is wrong with it.
    public let problem: String
    /// How to fix it.
    public let fix: String

    package init(stub: String, problem: String, fix: String) {
        self.stub = stub
        self.problem = problem
        self.fix = fix
    }

    /// One line: the stub, the problem and the fix.
    public var description: String {
        "Airlock rejected the stub for \(stub): \(problem). \(fix)"
    }
}
