import Foundation
import NIOCore
import Hummingbird

/// An `application/x-www-form-urlencoded` body as fields by name (the last value of a repeated
/// name wins), read with a size limit.
struct ConsoleForm: Sendable {
    var fields: [String: String]

    subscript(_ name: String) -> String? { fields[name] }

    init(fields: [String: String]) { self.fields = fields }

    /// Parses `text`; malformed percent-escapes keep their raw text.
    init(parsing text: String) {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        self.fields = fields
    }

    /// The form of `request`, refused with 413 above `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> ConsoleForm {
        let buffer = try await JSONBody.collect(request, limit: limit)
        return ConsoleForm(parsing: String(buffer: buffer))
    }
}
