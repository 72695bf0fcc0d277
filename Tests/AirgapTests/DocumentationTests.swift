import Foundation
import Testing

/// The tables of the "How Airgap Works" article (Airgap's DocC catalog) say what Airgap blocks and
/// what it cannot: every route the escape suite does not cover has a row in "What is not blocked",
/// with its reason.
@Suite(.aloneAmongGuardedTests)
struct DocumentationTests {
    static let articlePath = "Sources/Airgap/Documentation.docc/HowAirgapWorks.md"

    private static let article: String = {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent(articlePath), encoding: .utf8)) ?? ""
    }()

    @Test func articleHasBothTables() {
        #expect(!Self.rows(under: "## What is blocked").isEmpty, "no \"What is blocked\" table in \(Self.articlePath)")
        #expect(!Self.rows(under: "## What is not blocked").isEmpty, "no \"What is not blocked\" table in \(Self.articlePath)")
    }

    /// The rows of the table under `heading`: lines starting with `|` up to the first other line.
    private static func rows(under heading: String) -> [String] {
        guard let start = article.range(of: heading) else { return [] }
        let lines = article[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        return lines.drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.map(String.init)
    }

    /// Routes that interposition cannot cover, each with the text its row starts with.
    @Test(arguments: [
        "| Libraries loaded with `RTLD_DEEPBIND`",
        "| `io_uring`",
        "| A `syscall` instruction issued directly",
        "| Statically linked programs",
        "| setuid and setgid programs",
        "| Children started with an environment that drops",
        "| Children started before the guard activated",
        "| Child processes of a test binary built with `--sanitize=thread`",
        "| Connections opened before activation",
    ])
    func everyUncoveredRouteHasARowWithItsReason(row: String) {
        let table = Self.rows(under: "## What is not blocked")
        let match = table.first { $0.hasPrefix(row) }
        #expect(match != nil, "no row starting with \(row) in the \"What is not blocked\" table of \(Self.articlePath)")
        // Three columns: what, why, what to do instead; none empty.
        let cells = match?.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        #expect(cells.count == 3 && cells.allSatisfy { !$0.isEmpty }, "\(match ?? "")")
    }

    /// Every route of the escape suite appears in the "What is blocked" table.
    @Test(arguments: EscapeTests.routes.map(\.name))
    func everyCoveredRouteHasARow(route: String) {
        let table = Self.rows(under: "## What is blocked").joined(separator: "\n")
        let documentedName: String = switch route {
        case "connect-v6-24", "connect-v6-25", "connect-v6-26", "connect-v6-27": "IPv6 address lengths 24–27"
        case "connect-v4-mapped": "IPv4-mapped IPv6"
        case "tcp-fastopen": "MSG_FASTOPEN"
        case "udp-sendto", "syscall-sendto": "sendto"
        case "udp-sendmsg": "sendmsg"
        case "udp-sendmmsg": "sendmmsg"
        case "syscall-connect": "syscall(SYS_connect"
        case "raw-socket": "SOCK_RAW"
        case "packet-socket": "AF_PACKET"
        case "fork-connect": "fork()"
        case "dlvsym-sendmmsg": "__sendmmsg"
        case "dlvsym-socket": "__socket"
        case "dlvsym-connect": "dlvsym(RTLD_DEFAULT"
        case "sock-packet": "SOCK_PACKET"
        case "icmp-ping": "IPPROTO_ICMP"
        case "res_nquery", "res_nsearch", "res_nsend": "res_n*"
        case "__res_query", "__res_search", "__res_send": "__res_*"
        default: route
        }
        #expect(table.contains(documentedName), "the \"What is blocked\" table of \(Self.articlePath) does not mention \(documentedName) (route \(route))")
    }
}
