import Foundation

/// The tests that build a separate package of a user's (minutes each, on top of `swift test`'s own
/// build) run when `AIRLOCK_CONSUMER_TESTS=1`, as CI runs them (`.ci/run`).
public enum ConsumerPackages {
    /// Whether this run builds them.
    public static let areTested = ProcessInfo.processInfo.environment["AIRLOCK_CONSUMER_TESTS"] == "1"
    /// Why they are skipped otherwise.
    public static let reason = "builds a separate package of a user's (minutes): run with AIRLOCK_CONSUMER_TESTS=1, as CI does"
}

/// A package of a user's, written under `<Airlock>/.build/<name>/packages/MyApp` beside a link
/// `../Airlock` to the clone, with its build folder kept between runs in `.build/<name>/build`
/// (linked as the package's `.build`, where commands as the docs write them find it).
public struct ConsumerPackage {
    /// The package's folder.
    public let folder: URL
    /// Its build folder.
    public let build: URL
    /// Where logs go: `.build/<name>/`.
    public let work: URL

    /// Writes the package: `files` by path relative to it (`Package.swift`, `Tests/MyAppTests/…`),
    /// plus `Sources/MyApp/MyApp.swift` when `files` has no source of its own. Anything written
    /// before under `packages/` is removed first.
    public init(named name: String, airlock root: URL, files: [String: String]) throws {
        work = root.appendingPathComponent(".build/\(name)")
        let packages = work.appendingPathComponent("packages")
        folder = packages.appendingPathComponent("MyApp")
        build = work.appendingPathComponent("build")
        let manager = FileManager.default
        try? manager.removeItem(at: packages)
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        try manager.createDirectory(at: build, withIntermediateDirectories: true)
        try manager.createSymbolicLink(at: packages.appendingPathComponent("Airlock"), withDestinationURL: root)
        try manager.createSymbolicLink(at: folder.appendingPathComponent(".build"), withDestinationURL: build)
        var all = files
        if !all.keys.contains(where: { $0.hasPrefix("Sources/") }) { all["Sources/MyApp/MyApp.swift"] = "public enum MyApp {}\n" }
        for (path, text) in all {
            let url = folder.appendingPathComponent(path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (text.hasSuffix("\n") ? text : text + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
    }
}
