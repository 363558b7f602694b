import Foundation

/// Reads a response body up to a limit: refuses at once when `Content-Length` announces more,
/// and otherwise stops at the first chunk that takes it past the limit, so an oversized body
/// never sits in memory whole. Dropping the stream tells the transport to stop downloading.
enum BoundedBodyReader {
    static func read(_ response: RemoteHTTPStreamingResponse, limit: Int) async throws -> Data {
        let announced = response.value(forHeaderField: "Content-Length")
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let announced, announced > limit {
            throw RemoteLoadError(
                .payloadTooLarge, statusCode: response.statusCode,
                message:
                    "The response announces \(announced) bytes (Content-Length), more than the maximum of \(limit); it was not read."
            )
        }
        var body = Data()
        body.reserveCapacity(min(announced ?? 0, limit))
        for try await chunk in response.body {
            guard chunk.count <= limit - body.count else {
                throw RemoteLoadError(
                    .payloadTooLarge, statusCode: response.statusCode,
                    message: "The payload is larger than the maximum of \(limit) bytes; reading stopped there.")
            }
            body.append(chunk)
        }
        return body
    }
}
