import Foundation
import Hummingbird
import NIOCore
import Prometheus

/// `GET /health`, `GET /health/live`, `GET /health/ready`, `GET /metrics` (Prometheus text) and
/// `GET /openapi.json`.
struct ServiceRoutes: Sendable {
    let metrics: PrometheusCollectorRegistry
    let events: EventHub
    let readiness: Readiness

    func register(on router: Router<BasicRequestContext>) {
        let streams = metrics.makeGauge(descriptor: .named("flag_server_event_streams", help: "Open server-sent-event streams."))
        router.get("/health") { _, _ in
            JSONBody.response(["status": "ok"])
        }
        // Liveness: the process answers. A load balancer restarts a replica that stops answering.
        router.get("/health/live") { _, _ in
            JSONBody.response(["status": "ok"])
        }
        // Readiness: the state is loaded and the database was reachable at the last contact. A
        // replica that is not ready still serves its last state; a load balancer may prefer others.
        router.get("/health/ready") { _, _ in
            guard let problem = readiness.problem else {
                // A relay that lost its upstream still serves its last state: ready, and says so.
                if let since = readiness.staleSince {
                    return JSONBody.response([
                        "status": "stale",
                        "problem": "the upstream is unreachable since \(since.formatted(.iso8601)); serving the last state received",
                    ])
                }
                return JSONBody.response(["status": "ready"])
            }
            return JSONBody.response(["status": "not ready", "problem": problem], status: .serviceUnavailable)
        }
        router.get("/metrics") { _, _ in
            streams.set(Double(events.subscriberCount))
            var bytes: [UInt8] = []
            metrics.emit(into: &bytes)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("/openapi.json") { _, _ in
            guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
                let data = try? Data(contentsOf: url)
            else {
                throw APIError(.internalServerError, code: "internal", message: "openapi.json is missing from the bundle")
            }
            return JSONBody.response(data: data)
        }
    }
}
