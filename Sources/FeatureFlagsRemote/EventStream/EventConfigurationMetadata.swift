import FeatureFlags
import Foundation

/// What a `refetchEvaluation` event said about the new configuration (OFREP ADR 0008): its
/// `etag` and `lastModified`, sent back as the query parameters `flagConfigEtag` and
/// `flagConfigLastModified` on the refetch that event triggers, and on no other request. A
/// server with several replicas uses them to answer from a state at least as new as the event.
struct EventConfigurationMetadata: Sendable, Hashable {
    /// The longest value sent back (256 bytes); a longer one is dropped.
    static let maximumLength = 256

    var etag: String?
    /// Unix seconds (as the event sent them) or a date string, as text.
    var lastModified: String?

    /// Reads `etag` (a string) and `lastModified` (whole seconds or a string) from an event's
    /// data; anything else, or anything too long, is left out.
    init(event members: [String: FlagValue]) {
        func bounded(_ text: String) -> String? {
            text.isEmpty || text.utf8.count > Self.maximumLength ? nil : text
        }
        if case .string(let etag)? = members["etag"] { self.etag = bounded(etag) }
        switch members["lastModified"] {
        case .int(let seconds)?: lastModified = String(seconds)
        case .double(let seconds)? where seconds.isFinite && seconds == seconds.rounded(): lastModified = String(Int(seconds))
        case .string(let text)?: lastModified = bounded(text)
        default: break
        }
    }

    init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The query items of the refetch.
    var queryItems: [URLQueryItem] {
        [etag.map { URLQueryItem(name: "flagConfigEtag", value: $0) },
         lastModified.map { URLQueryItem(name: "flagConfigLastModified", value: $0) }].compactMap { $0 }
    }

    /// `url` with the query items added.
    func applied(to url: URL) -> URL {
        let items = queryItems
        guard !items.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []) + items
        return components.url ?? url
    }
}
