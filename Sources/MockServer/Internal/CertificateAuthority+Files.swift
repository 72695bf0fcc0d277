import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension CertificateAuthority {
    /// Reads and writes a CA's folder.
    ///
    /// The key file (key and certificate) is the CA: it is written to a temporary file with
    /// permissions `0600` and put in place with `link(2)`, which fails when the name exists, so
    /// two processes starting at once agree on one CA. The certificate file is derived from it
    /// and rewritten (atomically) whenever it is missing or differs.
    struct FileStore {
        let directory: URL

        var keyFile: URL { directory.appendingPathComponent(CertificateAuthority.privateKeyFileName) }
        var certificateFile: URL { directory.appendingPathComponent(CertificateAuthority.certificateFileName) }

        func loadOrCreate() throws -> CertificateAuthority {
            try makeDirectory()
            let authority: CertificateAuthority
            if let existing = try load() {
                authority = existing
            } else {
                let made = try CertificateAuthority.generate(in: directory)
                authority = try place(made) ?? load() ?? made
            }
            try writeCertificateFile(authority.pemRepresentation + "\n")
            return authority
        }

        private func makeDirectory() throws {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw MockServerError.certificateAuthorityUnavailable(
                        file: directory.path,
                        reason: "it is a file, not a folder",
                        fix: "Point the CA folder elsewhere (MockServer.TLS(certificateAuthorityDirectory:), airlock --ca-dir, AIRLOCK_CA_DIR) or remove the file."
                    )
                }
                return
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw MockServerError.certificateAuthorityUnavailable(
                    file: directory.path,
                    reason: "the folder cannot be created (\(Self.reason(error)))",
                    fix: "Choose a folder you can write (MockServer.TLS(certificateAuthorityDirectory:), airlock --ca-dir, AIRLOCK_CA_DIR)."
                )
            }
        }

        /// The CA in the folder, or `nil` when there is none yet.
        private func load() throws -> CertificateAuthority? {
            guard FileManager.default.fileExists(atPath: keyFile.path) else { return nil }
            let text: String
            do {
                text = try String(contentsOf: keyFile, encoding: .utf8)
            } catch {
                throw MockServerError.certificateAuthorityUnavailable(
                    file: keyFile.path,
                    reason: "it cannot be read (\(Self.reason(error)))",
                    fix: "Make it readable by this user, or point the CA folder elsewhere (airlock --ca-dir, AIRLOCK_CA_DIR)."
                )
            }
            do {
                return try CertificateAuthority.parse(keyFileText: text, directory: directory)
            } catch {
                throw MockServerError.certificateAuthorityInvalid(file: keyFile.path, directory: directory.path, reason: error.reason)
            }
        }

        /// Puts a new CA's key file in place; `nil` when another process was first.
        private func place(_ authority: CertificateAuthority) throws -> CertificateAuthority? {
            let temporary = directory.appendingPathComponent(".\(CertificateAuthority.privateKeyFileName).\(UUID().uuidString).tmp")
            defer { unlink(temporary.path) }
            try write(authority.keyFileText, to: temporary, permissions: 0o600)
            if link(temporary.path, keyFile.path) == 0 { return authority }
            let code = errno
            if code == EEXIST { return nil }
            throw MockServerError.certificateAuthorityUnavailable(
                file: keyFile.path,
                reason: "it cannot be created (\(String(cString: strerror(code))))",
                fix: "Choose a folder you can write (MockServer.TLS(certificateAuthorityDirectory:), airlock --ca-dir, AIRLOCK_CA_DIR)."
            )
        }

        private func writeCertificateFile(_ text: String) throws {
            if let current = try? String(contentsOf: certificateFile, encoding: .utf8), current == text { return }
            let temporary = directory.appendingPathComponent(".\(CertificateAuthority.certificateFileName).\(UUID().uuidString).tmp")
            defer { unlink(temporary.path) }
            try write(text, to: temporary, permissions: 0o644)
            guard rename(temporary.path, certificateFile.path) == 0 else {
                throw MockServerError.certificateAuthorityUnavailable(
                    file: certificateFile.path,
                    reason: "it cannot be written (\(String(cString: strerror(errno))))",
                    fix: "Make the folder writable by this user, or point the CA folder elsewhere (airlock --ca-dir, AIRLOCK_CA_DIR)."
                )
            }
        }

        /// Writes a new file with the given permissions from the start (never wider first).
        private func write(_ text: String, to file: URL, permissions: mode_t) throws {
            let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, permissions)
            guard descriptor >= 0 else {
                throw MockServerError.certificateAuthorityUnavailable(
                    file: file.path,
                    reason: "it cannot be created (\(String(cString: strerror(errno))))",
                    fix: "Make the folder writable by this user, or point the CA folder elsewhere (airlock --ca-dir, AIRLOCK_CA_DIR)."
                )
            }
            defer { close(descriptor) }
            // The umask may have narrowed the mode; the key file must be exactly 0600.
            fchmod(descriptor, permissions)
            let bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let result = bytes[written...].withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw MockServerError.certificateAuthorityUnavailable(
                        file: file.path,
                        reason: "it cannot be written (\(String(cString: strerror(errno))))",
                        fix: "Free some disk space or point the CA folder elsewhere (airlock --ca-dir, AIRLOCK_CA_DIR)."
                    )
                }
                written += result
            }
        }

        private static func reason(_ error: any Error) -> String {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            if let underlying, underlying.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(underlying.code)))
            }
            return (error as NSError).localizedDescription
        }
    }
}

/// `write(2)`, named apart from the methods called `write` above.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
