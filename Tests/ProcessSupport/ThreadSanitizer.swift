#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test binary was built with `--sanitize=thread`.
public enum ThreadSanitizer {
    /// `true` under `swift test --sanitize=thread`.
    public static let isActive: Bool = dlsym(nil, "__tsan_init") != nil
}
