import Foundation

/// Writes a line to standard error (Airgap's diagnostics and warn-mode lines).
func printToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
