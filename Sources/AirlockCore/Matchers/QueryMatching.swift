import AirlockBase

/// How a stub's query parameters are compared with a request's.
///
/// Repeated keys (`?id=1&id=2`) are kept as lists, never collapsed: a parameter's values are
/// compared as a list whose order does not matter.
public enum QueryMatching: Hashable, Sendable {
    /// The request has exactly the stub's parameters, each with exactly the stub's values, and no
    /// others.
    case exact
    /// The request has each of the stub's parameters with at least the stub's values; other
    /// parameters and extra values are ignored.
    case contains
}
