extension Cassette {
    /// One test-failure message per replay miss, for the `.cassette` trait and `cassette()`.
    var missReports: [String] {
        misses.map { miss in
            "Airlock replay miss: the cassette \(url.lastPathComponent) has no recorded response for "
                + "\(miss.request.method) \(miss.request.url), so the request failed.\n\(miss.message)"
        }
    }
}
