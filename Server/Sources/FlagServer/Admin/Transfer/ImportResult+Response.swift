import FlagEvaluation
import FlagServerModel
import Foundation
import Hummingbird
import NIOCore

extension AdminResponses.ImportResult {
    /// Changes encoded per step of ``response()``.
    static let changesPerSlice = 256

    enum CodingKeys: String, CodingKey {
        case dryRun, changes, problems, revisions, warnings
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(changes.map(Change.init), forKey: .changes)
        try container.encode(problems, forKey: .problems)
        try container.encode(revisions, forKey: .revisions)
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
    }

    /// The JSON response of ``body()``.
    func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body()))
    }

    /// The bytes ``JSONBody/response(_:status:headers:)`` gives for this value (keys sorted, as
    /// ``JSONBody/encoder`` writes them), built a slice of changes at a time, so that an import of
    /// thousands of flags never holds the JSON of all its audit drafts at once.
    func body() -> ByteBuffer {
        let encoder = JSONBody.encoder
        func encoded(_ value: some Encodable) -> Data {
            // The server's own response types always encode.
            (try? encoder.encode(value)) ?? Data("null".utf8)
        }
        var buffer = ByteBuffer()
        buffer.writeString("{\"changes\":[")
        for start in stride(from: 0, to: changes.count, by: Self.changesPerSlice) {
            let slice = changes[start..<min(start + Self.changesPerSlice, changes.count)].map(Change.init)
            // `[a,b]`: the elements without the brackets, joined as the whole array joins them.
            let array = encoded(slice)
            if start > 0 { buffer.writeString(",") }
            buffer.writeBytes(array.dropFirst().dropLast())
        }
        buffer.writeString("],\"dryRun\":")
        buffer.writeBytes(encoded(dryRun))
        buffer.writeString(",\"problems\":")
        buffer.writeBytes(encoded(problems))
        buffer.writeString(",\"revisions\":")
        buffer.writeBytes(encoded(revisions))
        if !warnings.isEmpty {
            buffer.writeString(",\"warnings\":")
            buffer.writeBytes(encoded(warnings))
        }
        buffer.writeString("}")
        return buffer
    }
}

extension AdminResponses.ImportResult.Change {
    /// The change a draft records, its JSON built now.
    init(_ draft: AuditDraft) {
        self.init(environment: draft.environment, subject: draft.subject, key: draft.key, before: draft.before, after: draft.after)
    }
}
