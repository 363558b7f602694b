import Logging
import Metrics
import Prometheus

/// What `serve` and `relay` set up first: logs to standard error at `level`, and metrics into a
/// Prometheus registry (served on `/metrics`).
enum Observability {
    static func bootstrap(level: Logger.Level) -> PrometheusCollectorRegistry {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}
