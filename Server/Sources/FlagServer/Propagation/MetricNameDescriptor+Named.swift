import Prometheus

extension MetricNameDescriptor {
    /// A descriptor whose Prometheus name is `name` exactly as written (`flag_server_…_total`):
    /// the server's metric names predate the descriptor's namespace and unit parts.
    static func named(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
