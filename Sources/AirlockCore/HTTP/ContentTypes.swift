import AirlockBase

/// `Content-Type` inference from a file extension: a built-in table, since Linux has no
/// UniformTypeIdentifiers.
package enum ContentTypes {
    private static let table: [String: String] = [
        "json": "application/json",
        "geojson": "application/geo+json",
        "jsonld": "application/ld+json",
        "txt": "text/plain",
        "text": "text/plain",
        "log": "text/plain",
        "md": "text/markdown",
        "html": "text/html",
        "htm": "text/html",
        "css": "text/css",
        "csv": "text/csv",
        "tsv": "text/tab-separated-values",
        "js": "text/javascript",
        "mjs": "text/javascript",
        "xml": "application/xml",
        "plist": "application/x-plist",
        "yaml": "application/yaml",
        "yml": "application/yaml",
        "toml": "application/toml",
        "pdf": "application/pdf",
        "zip": "application/zip",
        "gz": "application/gzip",
        "tar": "application/x-tar",
        "wasm": "application/wasm",
        "bin": "application/octet-stream",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "svg": "image/svg+xml",
        "ico": "image/vnd.microsoft.icon",
        "heic": "image/heic",
        "avif": "image/avif",
        "mp3": "audio/mpeg",
        "wav": "audio/wav",
        "m4a": "audio/mp4",
        "mp4": "video/mp4",
        "mov": "video/quicktime",
        "webm": "video/webm",
        "woff": "font/woff",
        "woff2": "font/woff2",
        "ttf": "font/ttf",
        "otf": "font/otf",
    ]

    /// The MIME type for an extension (case-insensitive), `application/octet-stream` when unknown.
    package static func forExtension(_ fileExtension: String) -> String {
        table[fileExtension.lowercased()] ?? "application/octet-stream"
    }
}
