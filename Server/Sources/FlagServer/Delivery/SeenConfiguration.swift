import Foundation
import Hummingbird

/// What a bulk refetch says the client was told by an event (OFREP ADR 0008): the query
/// parameters `flagConfigEtag` (our events' `etag`: the environment's revision) and
/// `flagConfigLastModified` (Unix seconds of that revision's commit, or an ISO 8601 date-time).
///
/// They are hints, not validators: a value that does not read as ours (another server's ETag, a
/// malformed time) is ignored and the request is answered as if it were absent.
struct SeenConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The longest parameter read (longer ones are ignored).
    static let maximumLength = 64

    var revision: Int?
    /// Unix seconds.
    var lastModified: Int?

    init(revision: Int? = nil, lastModified: Int? = nil) {
        self.revision = revision
        self.lastModified = lastModified
    }

    init(query: Parameters) {
        self.init(
            revision: query["flagConfigEtag"].flatMap { Self.revision(String($0)) },
            lastModified: query["flagConfigLastModified"].flatMap { Self.seconds(String($0)) })
    }

    /// `4`, `"4"` or `W/"4"`: a revision number.
    static func revision(_ text: String) -> Int? {
        guard text.utf8.count <= maximumLength else { return nil }
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        guard let revision = Int(text), revision >= 0 else { return nil }
        return revision
    }

    /// Unix seconds, or an ISO 8601 date-time (with or without fractional seconds).
    static func seconds(_ text: String) -> Int? {
        guard text.utf8.count <= maximumLength else { return nil }
        let text = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return seconds >= 0 ? seconds : nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return Int(date.timeIntervalSince1970.rounded(.down)) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Whether `environment` is at least what the client was told about. A commit time the
    /// server does not know counts as served.
    func isServed(by environment: CompiledEnvironment) -> Bool {
        if let revision, environment.revision < revision { return false }
        if let lastModified, let served = environment.lastModified,
            Int(served.timeIntervalSince1970.rounded(.down)) < lastModified
        {
            return false
        }
        return true
    }

    var description: String {
        [revision.map { "revision \($0)" }, lastModified.map { "modified at \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }
}
