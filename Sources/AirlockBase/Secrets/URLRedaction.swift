import Foundation

/// The secret names every output hides by default, shared by AirlockCore's `Redaction.standard`
/// and Airgap (which depends on this module only): one list, so a URL Airgap reports is redacted
/// as a journal would redact it.
package enum StandardSecretNames {
    /// Headers whose values are hidden (API-key style names are hidden besides, by rule).
    package static let headers: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-access-token",
        "private-token", "x-amz-security-token", "x-csrf-token", "x-xsrf-token", "x-goog-iap-jwt-assertion",
        "ocp-apim-subscription-key", "x-functions-key", "x-vault-token", "x-hub-signature", "x-hub-signature-256",
    ]
    /// Query and fragment items whose values are hidden.
    package static let queryItems: Set<String> = [
        "api_key", "apikey", "access_token", "token", "key", "sig", "signature", "password", "passwd",
        "secret", "client_secret", "refresh_token", "id_token", "code", "auth", "session_id", "sessionid",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential",
        "jwt", "assertion", "client_assertion", "private_key",
    ]
    /// Request body fields whose values are hidden.
    package static let requestFields: Set<String> = [
        "password", "passwd", "pwd", "token", "access_token", "refresh_token", "id_token", "secret",
        "client_secret", "api_key", "apikey", "private_key", "credentials", "credential", "authorization",
        "session_id", "sessionid", "otp", "pin", "ssn", "card_number", "cvv", "jwt", "client_assertion",
    ]
    /// Response body fields whose values are hidden: names that only ever hold a credential.
    package static let responseFields: Set<String> = [
        "access_token", "refresh_token", "id_token", "client_secret", "password", "passwd", "private_key", "client_assertion",
        "api_key", "apikey", "secret_access_key", "session_token",
    ]
    /// What replaces a hidden value.
    package static let replacement = "[REDACTED]"
}

/// The redaction a URL needs: its user-info password and the values of its secret query and
/// fragment items replaced, everything else left byte for byte.
package enum URLRedaction {
    /// `url` with its secrets replaced by `replacement`, percent-encoded as a URL carries it.
    /// - Parameters:
    ///   - url: The URL's text.
    ///   - passwords: Whether the user-info password is hidden.
    ///   - replacement: What replaces each secret, already encoded for a URL.
    ///   - isSecretItem: Whether a query or fragment item's (percent-decoded) name is secret.
    package static func redacting(_ url: String, passwords: Bool, replacement: String, isSecretItem: (String) -> Bool) -> String {
        var url = url
        let edits = url.withUTF8 { bytes in
            var edits = ByteEdits()
            let replacement = Array(replacement.utf8)
            for range in URLParts.secretRanges(in: bytes, 0..<bytes.count, passwords: passwords, isSecretItem: isSecretItem) {
                edits.replace(range, with: replacement)
            }
            return edits
        }
        return edits.applied(to: url)
    }

    /// `url` redacted with the standard names (``StandardSecretNames``) and replacement, as
    /// AirlockCore's `Redaction.standard.url(_:)` redacts it.
    package static func standard(_ url: String) -> String {
        redacting(url, passwords: true, replacement: encoded(StandardSecretNames.replacement), isSecretItem: standardQueryItems.contains)
    }

    /// A replacement as a URL carries it.
    package static func encoded(_ replacement: String) -> String {
        replacement.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? replacement
    }

    private static let standardQueryItems = NameSet(StandardSecretNames.queryItems)
}
