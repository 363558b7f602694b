import FlagServerClient
import FlagTooling
import Foundation
import Synchronization

/// A transport that answers from a list, one answer per request, and records the requests.
final class FakeFlagServerTransport: FlagServerTransport {
    enum Answer {
        case response(FlagServerResponse)
        case failure(FlagServerTransportError)
    }

    private let state: Mutex<(answers: [Answer], requests: [FlagServerRequest])>

    init(_ answers: [Answer]) {
        state = Mutex((answers, []))
    }

    /// A transport answering `status` with `body` to every request.
    convenience init(status: Int, body: String, location: String? = nil) {
        self.init(Array(repeating: .response(FlagServerResponse(status: status, location: location, body: Data(body.utf8))), count: 8))
    }

    var requests: [FlagServerRequest] { state.withLock { $0.requests } }

    func send(_ request: FlagServerRequest) throws(FlagServerTransportError) -> FlagServerResponse {
        let answer = state.withLock { state in
            state.requests.append(request)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .response(let response)?: return response
        case .failure(let error)?: throw error
        case nil: throw .unreachable("no answer prepared")
        }
    }
}
