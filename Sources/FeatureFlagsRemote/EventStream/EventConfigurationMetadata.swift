import FeatureFlags
import Foundation

/// What a `refetchEvaluation` event said about the new configuration (OFREP ADR 0008): its
/// `etag` and `lastModified`, sent back as the query parameters `flagConfigEtag` and
/// `flagConfigLastModified` on the refetch that event triggers, and on no other request. A
/// server with several replicas uses them to answer from a state at least as new as the event.
///
/// The flag server adds two members OFREP clients ignore: `changes` (new values to apply
/// without a request, see ``InlineFlagChanges``) and `refetchSpreadMs` (a window over which
/// clients spread their refetches, so that a change does not bring every client at once).
struct EventConfigurationMetadata: Sendable, Hashable {
    /// The longest value sent back (256 bytes); a longer one is dropped.
    static let maximumLength = 256

    var etag: String?
    /// Unix seconds (as the event sent them) or a date string, as text.
    var lastModified: String?
    /// The new values the event carried (a flag server's addition to OFREP), applied instead
    /// of a refetch when the values are at their base.
    var changes: InlineFlagChanges?
    /// How long the server asks clients to spread their refetches over (its `refetchSpreadMs`,
    /// at most ``maximumRefetchSpread``): a refetch waits a random delay within it.
    var refetchSpread: TimeInterval = 0

    /// The longest spread honoured (5 minutes), whatever the event says.
    static let maximumRefetchSpread: TimeInterval = 300

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
        if etag != nil { changes = InlineFlagChanges(event: members) }
        if let milliseconds = members["refetchSpreadMs"]?.doubleValue, milliseconds.isFinite, milliseconds > 0 {
            refetchSpread = min(milliseconds / 1000, Self.maximumRefetchSpread)
        }
    }

    init(etag: String? = nil, lastModified: String? = nil, changes: InlineFlagChanges? = nil, refetchSpread: TimeInterval = 0) {
        self.etag = etag
        self.lastModified = lastModified
        self.changes = changes
        self.refetchSpread = refetchSpread
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
