import FlagEvaluation
import Foundation
import Synchronization

/// Appends every request the test suite sends (method, path, body) and the answer's status and
/// error code to the JSON-lines file named by `FLAG_SERVER_REQUEST_LOG`, when it is set.
/// `.ci/server-requests.sh` runs the suite with it and checks every logged request against the
/// OpenAPI document (`scripts/tools/validate_responses.py --requests`).
enum RequestLog {
    static let path = ProcessInfo.processInfo.environment["FLAG_SERVER_REQUEST_LOG"].flatMap { $0.isEmpty ? nil : $0 }
    private static let lock = Mutex(())

    static func record(method: String, path requestPath: String, body: String?, status: Int, replyBody: String) {
        guard let path else { return }
        let parsed = body.flatMap { try? JSONValue(parsing: $0) }
        let entry: JSONValue = [
            "method": .string(method.lowercased()), "path": .string(requestPath), "status": .int(status),
            "request": parsed ?? .null, "requestNotJSON": .bool(body != nil && parsed == nil),
            "body": (try? JSONValue(parsing: replyBody)) ?? .null,
        ]
        let line = Data((entry.serialized() + "\n").utf8)
        lock.withLock { _ in
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: line)
        }
    }
}
