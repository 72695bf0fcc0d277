import AirlockWireMockXML
import Foundation
import HTTPMock
import Testing

/// Real mapping files from public WireMock users (`Tests/Fixtures/WireMockCorpus`, sources and
/// licences in its `SOURCES.md`): every mapping either loads and registers, or is refused with an
/// error that names its file and field. The share that loads is printed; a drop below the share
/// measured when the corpus was added fails (`Benchmarks/wiremock-side-by-side.py` compares the
/// answers of those that load with WireMock's).
struct WireMockCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/WireMockCorpus")

    /// What reading one file came to.
    struct Outcome {
        let file: String
        let mappings: Int
        let refusal: StubFileError?
    }

    /// Reads each `.json` file under `folder` on its own, with `root` for `bodyFileName`.
    static func outcomes(in folder: URL, root: URL) throws -> [Outcome] {
        // The XML matchers, as MockServer and `airlock serve` serve them.
        WireMockXML.install()
        let files = (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "json" }
            .sorted { $0.path < $1.path }
        return try files.map { file in
            let data = try Data(contentsOf: file)
            let name = String(file.path.dropFirst(corpus.path.count + 1))
            do throws(StubFileError) {
                let mappings = try WireMockMappings(data: data, source: name, rootDirectory: root)
                let rejected = HTTPMock().registerStubs(mappings)
                #expect(rejected.isEmpty, "\(name): \(rejected)")
                return Outcome(file: name, mappings: mappings.mappingCount, refusal: nil)
            } catch {
                // How many mappings the file holds, counted without Airlock's reader.
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
                let count = (object?["mappings"] as? [Any])?.count ?? 1
                return Outcome(file: name, mappings: count, refusal: error)
            }
        }
    }

    static var sources: [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)) ?? [])
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("mappings").path) }
            .sorted { $0.path < $1.path }
    }

    @Test func everyMappingLoadsOrIsRefusedNamingItsField() throws {
        let sources = Self.sources
        #expect(sources.count >= 6)
        var loaded = 0
        var total = 0
        var refusals: [String] = []
        for source in sources {
            for outcome in try Self.outcomes(in: source.appendingPathComponent("mappings"), root: source) {
                total += outcome.mappings
                guard let refusal = outcome.refusal else {
                    loaded += outcome.mappings
                    continue
                }
                // Refused by name: the file, and the field or position, in the message.
                #expect(refusal.file == outcome.file && refusal.location != nil, "\(refusal)")
                refusals.append(refusal.description)
            }
        }
        let share = Double(loaded) / Double(max(total, 1))
        print("WireMock corpus: \(loaded) of \(total) mappings load (\(String(format: "%.1f", share * 100)) %); \(refusals.count) file(s) refused, each naming the field:")
        for refusal in refusals { print("  " + refusal) }
        #expect(total >= 300)
        #expect(share >= Self.measuredShare, "the share of the corpus that loads fell below \(Self.measuredShare)")
    }

    /// WireMock's own webhook examples (`postServeActions`, templated from `originalRequest`,
    /// fixed and uniform delays) load and register.
    @Test func wireMocksWebhookExamplesLoad() throws {
        let root = Self.corpus.appendingPathComponent("wiremock-docs")
        let outcomes = try Self.outcomes(in: root.appendingPathComponent("mappings"), root: root).filter { $0.file.contains("webhooks-and-callbacks-0") }
        #expect(outcomes.count == 5)
        for outcome in outcomes {
            #expect(outcome.refusal == nil, "\(outcome.file): \(outcome.refusal.map(String.init(describing:)) ?? "")")
        }
    }

    /// The files WireMock itself refuses to start with: Airlock refuses them too, by name.
    @Test func whatWireMockRefusesIsRefused() throws {
        var seen = 0
        for source in Self.sources {
            let rejected = source.appendingPathComponent("rejected-by-wiremock")
            guard FileManager.default.fileExists(atPath: rejected.path) else { continue }
            for outcome in try Self.outcomes(in: rejected, root: source) {
                seen += 1
                #expect(outcome.refusal?.location != nil, "\(outcome.file) loads, but WireMock refuses it")
            }
        }
        #expect(seen >= 1)
    }

    /// The share measured: 315 of 323 (97.5 %) since webhooks, the XML matchers,
    /// `matchesJsonSchema`, every template helper, templated `bodyFileName` and `proxyBaseUrl`,
    /// `transformerParameters` and what WireMock drops when it loads (a second url field or
    /// matcher, `"absent": false`) load; 236 (73.1 %) before, 230 (71.2 %) before the date-time
    /// matchers and `multipartPatterns` (see `BENCHMARKS.md`).
    static let measuredShare = 0.97
}
