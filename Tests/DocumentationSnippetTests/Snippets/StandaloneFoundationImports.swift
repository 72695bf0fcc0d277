import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Troubleshooting.md: the imports a file that names URLSession, URLRequest or HTTPURLResponse
// needs on Linux. Compiled as a file of its own, with exactly these imports.
let troubleshootingSession: URLSession? = nil
