import Foundation
import HTTPTypes
import NIOHTTP1

/// The traffic page's requests, under the admin API's prefix and behind its checks: the page
/// and its two files (which hold no data, so a browser opens them without the admin token), and
/// the live feed of exchanges (which needs it, where the server has one).
enum InspectorRoute {
    /// Where the page lives.
    static let path = "/__admin/inspector/"

    /// One of the page's files, served with headers that keep it to itself.
    struct File {
        let contentType: String
        let bytes: [UInt8]
    }

    /// A file of the page.
    case file(File)
    /// `/__admin/inspector` without its slash: sent on to the page, so that its relative URLs
    /// resolve.
    case redirect
    /// `GET /__admin/inspector/feed`: the exchanges as server-sent events.
    case feed
    /// `GET /__admin/inspector/state`: the scenarios' states and the recording's.
    case state
    /// `GET /__admin/inspector/exchanges/<sequence>`: one exchange in full.
    case exchange(Int)

    init?(_ head: HTTPRequestHead) {
        guard head.method == .GET || head.method == .HEAD else { return nil }
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        switch path {
        case "/__admin/inspector": self = .redirect
        case Self.path, Self.path + "index.html": self = .file(File(contentType: "text/html; charset=utf-8", bytes: PackageResources.inspector_html))
        case Self.path + "inspector.js": self = .file(File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.inspector_js))
        case Self.path + "inspector.css": self = .file(File(contentType: "text/css; charset=utf-8", bytes: PackageResources.inspector_css))
        case Self.path + "favicon.svg": self = .file(File(contentType: "image/svg+xml", bytes: PackageResources.favicon_svg))
        case Self.path + "feed": self = .feed
        case Self.path + "state": self = .state
        case _ where path.hasPrefix(Self.path + "exchanges/"):
            guard let sequence = Int(path.dropFirst(Self.path.count + "exchanges/".count)), sequence > 0 else { return nil }
            self = .exchange(sequence)
        default: return nil
        }
    }

    /// Whether the request needs the admin token (where the server has one): the feed and the
    /// state do, the page's files do not.
    var needsToken: Bool {
        switch self {
        case .feed, .state, .exchange: true
        case .file, .redirect: false
        }
    }

    /// What every answer of the page carries: nothing from elsewhere may load or run (scripts,
    /// styles and requests only from the page's own origin, no inline script or style, no
    /// frames, no forms, no plugins), nothing is sniffed, cached or sent as a referrer.
    static let protectiveFields: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .cacheControl: "no-store",
    ]

    /// The fields of one of the page's files.
    static func fields(contentType: String) -> HTTPFields {
        var fields: HTTPFields = [.contentType: contentType]
        fields.append(contentsOf: protectiveFields)
        return fields
    }
}
