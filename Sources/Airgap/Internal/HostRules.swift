import AirlockBase
import Foundation
import CAirgap

/// `allowedHosts` split into host patterns (for names) and address rules (IP literals and CIDR
/// ranges, held by the C socket layer).
///
/// One pattern language for every layer: an entry is accepted only when both AirlockBase's
/// `HostPattern` (which the URLSession layer matches with) and the C matcher (which the resolver
/// hooks of this process, its forked copies and its preloaded children match with) accept it,
/// and the two give the same verdict for every name (the pattern table of the tests checks it).
struct HostRules: Sendable {
    private(set) var patterns: [HostPattern] = []
    private(set) var addressRules: [String] = []
    /// Entries refused, each with what is wrong and how to write it.
    private(set) var rejected: [(entry: String, problem: String)] = []
    /// The pattern entries as written, trimmed (for the C matcher).
    private(set) var names: [String] = []

    /// The longest name either matcher allows, in bytes (DNS names have at most 253).
    static let longestName = 1024

    init(_ hosts: Set<String>) {
        for entry in hosts.sorted() {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            if airgap_is_address_rule(text) == 1 {
                addressRules.append(text)
                continue
            }
            if let problem = Self.problem(with: text) {
                rejected.append((text, problem))
                continue
            }
            // `*.example.com` covers example.com and every name below it, at any depth.
            let patternText = text.hasPrefix("*.") ? "**." + text.dropFirst(2) : text
            do {
                let pattern = try HostPattern(patternText)
                guard airgap_host_pattern_is_valid(text) == 1 else {
                    rejected.append((text, "the C layer cannot match it. Write labels of letters, digits, \"-\", \"_\" and \"*\""))
                    continue
                }
                patterns.append(pattern)
                names.append(text)
            } catch {
                rejected.append((text, "\(error.problem). \(error.fix)"))
            }
        }
    }

    /// What keeps `text` from being a pattern the C layer can match too, or `nil`.
    private static func problem(with text: String) -> String? {
        if text.utf8.contains(where: { $0 >= 0x80 }) {
            return "it has characters outside ASCII. Write the name in its ASCII (IDNA) form, such as \"xn--bcher-kva.example\" for \"bücher.example\""
        }
        if text.utf8.contains(UInt8(ascii: ",")) {
            return "it contains a comma, which separates entries in AIRGAP_ALLOWED_HOSTS. Give each host as an entry of its own"
        }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "it contains a control character. Remove it"
        }
        return nil
    }

    /// The accepted entries, as the C layer of a child process reads them.
    var accepted: [String] {
        addressRules + names
    }

    /// Whether a host name matches a pattern: the verdict the C matcher gives for the same name.
    func allowsName(_ name: String) -> Bool {
        var bytes = Array(name.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard bytes.count <= Self.longestName else { return false }
        // The C matcher compares bytes, folding ASCII letters only: a byte outside ASCII matches
        // nothing but a `*`. "/" is a byte no valid pattern contains, so HostPattern (which
        // lowercases with Unicode's rules) treats each such byte the same way.
        let host = String(decoding: bytes.map { $0 >= 0x80 ? UInt8(ascii: "/") : $0 }, as: UTF8.self)
        return patterns.contains { $0.matches(host) }
    }

    /// Whether a URL's host is allowed: by name, or as an address inside an address rule.
    func allowsURLHost(_ host: String) -> Bool {
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        if airgap_is_address_rule(bare) == 1 {
            return allowsAddress(bare)
        }
        return allowsName(bare)
    }

    /// Whether the numeric address `address` falls within these rules' address rules, or is a
    /// loopback address of `localhost` when a pattern is `localhost` (RFC 6761, as the C layer).
    func allowsAddress(_ address: String) -> Bool {
        if addressRules.contains(where: { airgap_address_rule_matches($0, address) == 1 }) { return true }
        if names.contains(where: { $0.lowercased() == "localhost" }) {
            return airgap_address_rule_matches("127.0.0.1", address) == 1 || airgap_address_rule_matches("::1", address) == 1
        }
        return false
    }

    /// Replaces the C layer's rules with these, closing the addresses that names of the
    /// previous rules resolved to. `localhost` adds 127.0.0.1 and ::1 (RFC 6761).
    ///
    /// The swap is one step in the C layer: a connection another thread makes meanwhile is
    /// checked against the old rules or the new ones, never against an empty list.
    func installAddressRules() {
        _ = airgap_replace_rules(addressRules.joined(separator: "\n"), names.joined(separator: "\n"))
    }
}
