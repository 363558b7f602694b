import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Synchronization

/// An in-process OFREP server for the event stream tests: bulk evaluations answer with a value
/// that grows by one per request (`cues.page_size`: 41, 42, …), an `ETag` per request and the
/// configured `eventStreams`; `GET` requests open an event stream the test writes to.
final class EventStreamTestTransport: HTTPTransport {
    /// One open event stream.
    struct Connection: Sendable {
        let request: RemoteHTTPRequest
        let continuation: AsyncThrowingStream<Data, any Error>.Continuation

        func send(_ text: String) { continuation.yield(Data(text.utf8)) }
        func close() { continuation.finish() }
    }

    private struct State {
        var requests: [RemoteHTTPRequest] = []
        var connections: [Connection] = []
        var terminated: Int = 0
        var waiters: [(predicate: @Sendable (EventStreamTestTransport.Snapshot) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var eventStreams: String
        var streamStatus = 200
        var metadataVersion: String?
    }

    /// What the transport has seen.
    struct Snapshot: Sendable {
        var requests: [RemoteHTTPRequest]
        var connections: [Connection]
        /// Event streams whose reader went away.
        var terminated: Int
        var bulkRequests: [RemoteHTTPRequest] { requests.filter { $0.method == .post } }
        var streamRequests: [RemoteHTTPRequest] { requests.filter { $0.method == .get } }
    }

    private let state: Mutex<State>

    /// `eventStreams` is the JSON array the bulk response advertises; `metadataVersion`, when
    /// set, the configuration version bulk responses name in `metadata.version`.
    init(
        eventStreams: String = #"[{"type": "sse", "endpoint": {"requestUri": "/ofrep/v1/events"}}]"#,
        metadataVersion: String? = nil
    ) {
        state = Mutex(State(eventStreams: eventStreams, metadataVersion: metadataVersion))
    }

    /// The `metadata.version` bulk responses name from now on.
    func setMetadataVersion(_ version: String?) {
        state.withLock { $0.metadataVersion = version }
    }

    var snapshot: Snapshot {
        state.withLock { Snapshot(requests: $0.requests, connections: $0.connections, terminated: $0.terminated) }
    }

    /// The status event stream requests get from now on (200 opens a stream).
    func setStreamStatus(_ status: Int) {
        state.withLock { $0.streamStatus = status }
    }

    /// Returns once `predicate` holds.
    func wait(until predicate: @escaping @Sendable (Snapshot) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state -> Bool in
                if predicate(Snapshot(requests: state.requests, connections: state.connections, terminated: state.terminated)) {
                    return true
                }
                state.waiters.append((predicate, continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }

    /// Returns the `count`-th event stream connection (1 for the first) once it is open.
    func connection(_ count: Int) async -> Connection {
        await wait { $0.connections.count >= count }
        return snapshot.connections[count - 1]
    }

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        let response = state.withLock { state -> RemoteHTTPStreamingResponse in
            state.requests.append(request)
            defer { wakeWaiters(&state) }
            if request.method == .post {
                let count = state.requests.filter { $0.method == .post }.count
                let metadata = state.metadataVersion.map { #", "metadata": {"version": "\#($0)"}"# } ?? ""
                let body =
                    #"{"flags": [{"key": "cues.page_size", "value": \#(40 + count), "reason": "STATIC"}], "eventStreams": \#(state.eventStreams)\#(metadata)}"#
                return RemoteHTTPStreamingResponse(
                    RemoteHTTPResponse(
                        statusCode: 200, headerFields: ["Content-Type": "application/json", "ETag": "\"r\(count)\""],
                        body: Data(body.utf8)))
            }
            guard state.streamStatus == 200 else {
                return RemoteHTTPStreamingResponse(RemoteHTTPResponse(statusCode: state.streamStatus))
            }
            let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    state.terminated += 1
                    self?.wakeWaiters(&state)
                }
            }
            state.connections.append(Connection(request: request, continuation: continuation))
            return RemoteHTTPStreamingResponse(
                statusCode: 200, headerFields: ["Content-Type": "text/event-stream"], body: body)
        }
        return response
    }

    private func wakeWaiters(_ state: inout State) {
        let snapshot = Snapshot(requests: state.requests, connections: state.connections, terminated: state.terminated)
        var woken: [CheckedContinuation<Void, Never>] = []
        state.waiters.removeAll { waiter in
            guard waiter.predicate(snapshot) else { return false }
            woken.append(waiter.continuation)
            return true
        }
        for continuation in woken { continuation.resume() }
    }
}
