import AirlockBase

/// Airlock's version, as `airlock --version` and HAR files' `creator` say it.
package enum AirlockVersion {
    /// The version of this source tree (see CHANGELOG.md).
    package static let current = "0.2.0"
}
