import Foundation
import AirlockCore
import CAirgap

/// `allowedHosts` split into host-name patterns (for names) and address rules (IP literals and
/// CIDR ranges, held by the C socket layer).
struct HostRules: Sendable {
    private(set) var patterns: [HostPattern] = []
    private(set) var addressRules: [String] = []
    private(set) var rejected: [String] = []
    /// The name entries as written (for the C matcher of forked and preloaded children).
    private(set) var names: [String] = []

    init(_ hosts: Set<String>) {
        for entry in hosts.sorted() {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            if airgap_is_address_rule(text) == 1 {
                addressRules.append(text)
                continue
            }
            // `*.example.com` covers example.com and every name below it, at any depth.
            let patternText = text.hasPrefix("*.") ? "**." + text.dropFirst(2) : text
            if let pattern = try? HostPattern(patternText) {
                patterns.append(pattern)
                names.append(text)
            } else {
                rejected.append(text)
            }
        }
    }

    /// Whether a host name matches a pattern.
    func allowsName(_ name: String) -> Bool {
        var host = Substring(name)
        if host.hasSuffix(".") { host = host.dropLast() }
        return patterns.contains { $0.matches(String(host)) }
    }

    /// Whether a URL's host is allowed: by name, or as an address inside an address rule.
    func allowsURLHost(_ host: String) -> Bool {
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        if airgap_is_address_rule(bare) == 1 {
            return airgap_rules_allow_address(bare) == 1
        }
        return allowsName(bare)
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
