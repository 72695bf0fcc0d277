import CAirgap
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every name under which the system's C library exports a hooked function (its dynamic symbol
/// table: `connect`, `__connect`, `__sendmmsg`, `__socket`, `__res_query`, …) is hooked, in this
/// process and in the preload library, or listed here as uncovered with its reason. A C library
/// that adds an alias fails this test instead of opening a silent route.
@Suite(.aloneAmongGuardedTests)
struct AliasTests {
    /// Exported names that reduce to a hooked function but are deliberately not hooked, with why.
    /// (None today.)
    static let uncovered: [String: String] = [:]

    /// Aliases the C library keeps only as compatibility symbols (`name@GLIBC_2.2.5`, no default
    /// version): only programs linked against an older C library bind them. The hooks define them
    /// (calls inside the test binary, and every child through the preload library, are checked),
    /// but a test executable's linker exports a definition only when a library defines the same
    /// default name, so a shared library built against glibc before 2.34 that calls `__res_query`
    /// reaches the C library. The "What is not blocked" table lists them.
    static let compatibilityOnly: Set<String> = [
        "__res_query", "__res_search", "__res_querydomain", "__res_send",
        "__res_nquery", "__res_nsearch", "__res_nquerydomain", "__res_nsend",
    ]

    static let hooked = Set(String(cString: airgap_hooked_functions()).split(separator: " ").map(String.init))

    /// `__res_query` → `res_query`, `__libc_connect` → `connect`.
    static func baseName(_ name: String) -> String {
        var base = Substring(name)
        while base.hasPrefix("_") { base = base.dropFirst() }
        if base.hasPrefix("libc_") { base = base.dropFirst(5) }
        return String(base)
    }

    static let hookedBases = Set(hooked.map(baseName))

    /// The C library this process loaded, from `/proc/self/maps`.
    static var libraryPath: String? {
        // procfs files report no size: read to the end rather than by the size.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return nil }
        let maps = String(decoding: data, as: UTF8.self)
        return maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { ($0 as NSString).lastPathComponent.hasPrefix("libc.so") }
    }

    /// The aliases of hooked functions that the C library exports.
    static func aliasesInLibrary(defaultVersionOnly: Bool = false) throws -> Set<String> {
        let path = try #require(libraryPath, "no libc.so in /proc/self/maps")
        let functions = try ELFDynamicSymbols.definedFunctions(in: path, defaultVersionOnly: defaultVersionOnly)
        #expect(functions.contains("connect") && functions.contains("getaddrinfo"), "the symbol table of \(path) reads wrong: \(functions.count) functions")
        return functions.filter { hookedBases.contains(baseName($0)) }
    }

    @Test func compatibilityOnlyAliasesAreTheDocumentedOnes() throws {
        let all = try Self.aliasesInLibrary()
        let bindable = try Self.aliasesInLibrary(defaultVersionOnly: true)
        #expect(all.subtracting(bindable) == Self.compatibilityOnly, "the C library's compatibility-only aliases changed: update AliasTests.compatibilityOnly and the \"What is not blocked\" table")
    }

    @Test func everyAliasOfAHookedFunctionIsHookedInThisProcess() throws {
        let aliases = try Self.aliasesInLibrary(defaultVersionOnly: true)
        #expect(aliases.isSuperset(of: ["__sendmmsg", "__socket", "__connect"]), "\(aliases.sorted())")
        let path = try #require(Self.libraryPath)
        let library = try #require(dlopen(path, RTLD_LAZY | RTLD_NOLOAD), "dlopen(\(path)) failed")
        defer { dlclose(library) }
        for alias in aliases.sorted() where Self.uncovered[alias] == nil {
            #expect(Self.hooked.contains(alias), "the C library exports \(alias), an alias of \(Self.baseName(alias)), which CAirgap does not hook: define it in airgap.c (and in the hooked table), or list it in AliasTests.uncovered and the \"What is not blocked\" table with its reason")
            // The process resolves the name to the hook, not to the C library's own function.
            let own = dlsym(library, alias)
            let resolved = dlsym(UnsafeMutableRawPointer(bitPattern: 0), alias)
            #expect(resolved != nil && resolved != own, "\(alias) resolves to the C library's own function (\(String(describing: resolved)), \(String(describing: own)))")
        }
    }

    @Test func everyAliasOfAHookedFunctionIsHookedInThePreloadLibrary() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [String(cString: airgap_preload_library_path()), directory.appendingPathComponent("libAirgapPreload.so").path]
        let path = try #require(candidates.first { !$0.isEmpty && FileManager.default.fileExists(atPath: $0) }, "libAirgapPreload.so not found next to the test binary; build it with `swift build`")
        let exported = try ELFDynamicSymbols.definedFunctions(in: path)
        for alias in try Self.aliasesInLibrary().sorted() where Self.uncovered[alias] == nil {
            #expect(exported.contains(alias), "\(path) does not define \(alias)")
        }
        #expect(exported.contains("dlvsym"), "\(path) does not answer dlvsym lookups of hooked names")
    }
}

/// Reads the defined function names of an ELF64 shared object's dynamic symbol table.
enum ELFDynamicSymbols {
    struct FormatError: Error, CustomStringConvertible {
        let path: String
        let problem: String
        var description: String { "\(path): \(problem)" }
    }

    /// - Parameter defaultVersionOnly: Leave out names that have only hidden (compatibility)
    ///   versions, which new links cannot bind.
    static func definedFunctions(in path: String, defaultVersionOnly: Bool = false) throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Set<String> in
            func read<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) throws -> T {
                guard offset >= 0, offset + MemoryLayout<T>.size <= bytes.count else {
                    throw FormatError(path: path, problem: "offset \(offset) is outside the file")
                }
                return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
            }
            guard bytes.count > 64, bytes[0] == 0x7F, bytes[1] == UInt8(ascii: "E"), bytes[4] == 2, bytes[5] == 1 else {
                throw FormatError(path: path, problem: "not a little-endian ELF64 file")
            }
            let sectionTable = Int(try read(0x28, as: UInt64.self))
            let sectionSize = Int(try read(0x3A, as: UInt16.self))
            let sectionCount = Int(try read(0x3C, as: UInt16.self))
            func section(_ index: Int) throws -> (type: UInt32, offset: Int, size: Int, link: Int) {
                let base = sectionTable + index * sectionSize
                return (try read(base + 4, as: UInt32.self), Int(try read(base + 24, as: UInt64.self)),
                        Int(try read(base + 32, as: UInt64.self)), Int(try read(base + 40, as: UInt32.self)))
            }
            guard let dynsym = try (0..<sectionCount).map(section).first(where: { $0.type == 11 }) else {
                throw FormatError(path: path, problem: "no dynamic symbol table")
            }
            let strings = try section(dynsym.link)
            // SHT_GNU_versym: one UInt16 per symbol; bit 15 marks a hidden (non-default) version.
            let versions = try (0..<sectionCount).map(section).first { $0.type == 0x6FFF_FFFF }
            var names = Set<String>()
            for (index, symbol) in stride(from: dynsym.offset, to: dynsym.offset + dynsym.size, by: 24).enumerated() {
                if defaultVersionOnly, let versions, try read(versions.offset + index * 2, as: UInt16.self) & 0x8000 != 0 {
                    continue
                }
                let info = try read(symbol + 4, as: UInt8.self)
                let sectionIndex = try read(symbol + 6, as: UInt16.self)
                let kind = info & 0xF
                guard sectionIndex != 0, kind == 2 || kind == 10 else { continue }   // defined FUNC or IFUNC
                let nameOffset = strings.offset + Int(try read(symbol, as: UInt32.self))
                guard nameOffset < bytes.count else { continue }
                let end = bytes[nameOffset...].firstIndex(of: 0) ?? bytes.count
                names.insert(String(decoding: bytes[nameOffset..<end], as: UTF8.self))
            }
            return names
        }
    }
}
