public import Foundation
import FlagStatistics

/// An experiment report as files: JSON (the engine's input and every figure) and CSV (one row per
/// metric and arm with its sufficient statistics and figures).
extension ExperimentReport {
    /// The report as JSON, keys sorted. Its `data` member is the engine's input: given to
    /// `POST /admin/v1/statistics/analyze` or `flags stats analyze` it gives `analysis` again,
    /// figure for figure; each of `days` carries its own `data` the same way.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // The engine's figures are finite for valid inputs; this keeps an export of anything else
        // possible rather than failing it.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try encoder.encode(self)
    }

    /// A report read back from ``json()``.
    public static func decode(json: Data) throws -> ExperimentReport {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try decoder.decode(ExperimentReport.self, from: json)
    }

    /// The CSV columns, in order.
    public static let csvColumns = [
        "metric", "metric_name", "kind", "higher_is_better", "guardrail", "arm", "control", "units", "sum", "sum_of_squares",
        "covariate_sum", "covariate_sum_of_squares", "sum_of_products", "mean", "difference", "difference_lower",
        "difference_upper", "p_value", "adjusted_p_value", "relative_lift", "relative_lower", "relative_upper",
        "sequential_lower", "sequential_upper", "sequential_p_value", "sequential_adjusted_p_value", "chance_to_beat_control",
        "expected_loss", "decision", "direction", "percentile", "percentile_values", "quantile", "quantile_standard_error",
        "quantile_difference", "quantile_lower", "quantile_upper", "quantile_p_value", "quantile_adjusted_p_value",
    ]

    /// One row per metric and arm (the control first, its comparison fields empty), every number
    /// with all its digits (Swift's shortest round-trip form), RFC 4180 quoting. A percentile
    /// metric's rows end with its p, the values its quantile was taken from, the quantile and the
    /// difference from the control's; the others leave those fields empty.
    public func csv() -> String {
        var lines = [Self.csvColumns.joined(separator: ",")]
        for metric in metrics {
            for arm in metric.arms {
                let s = arm.statistics
                let c = arm.comparison
                let fields: [String] = [
                    Self.text(metric.key), Self.text(metric.name), metric.kind.rawValue, String(metric.higherIsBetter),
                    String(metric.guardrail), Self.text(arm.arm), String(arm.arm == control), Self.number(s.units),
                    Self.number(s.sum), Self.number(s.sumOfSquares), Self.number(s.covariateSum),
                    Self.number(s.covariateSumOfSquares), Self.number(s.sumOfProducts), Self.number(arm.mean),
                    Self.number(c?.absolute.estimate), Self.number(c?.absolute.lower), Self.number(c?.absolute.upper),
                    Self.number(c?.absolute.pValue), Self.number(c?.adjustedPValue), Self.number(c?.relative?.estimate),
                    Self.number(c?.relative?.lower), Self.number(c?.relative?.upper), Self.number(c?.sequential.lower),
                    Self.number(c?.sequential.upper), Self.number(c?.sequential.pValue), Self.number(c?.sequential.adjustedPValue),
                    Self.number(c?.bayesian.chanceToBeatControl), Self.number(c?.bayesian.expectedLoss),
                    arm.decision?.state.rawValue ?? "", arm.decision?.direction?.rawValue ?? "",
                ] + Self.percentileFields(metric.percentile, arm: arm.arm)
                lines.append(fields.joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The percentile columns of `arm`'s row: empty for a metric compared by its mean.
    static func percentileFields(_ percentile: PercentileReport?, arm: String) -> [String] {
        guard let percentile, let row = percentile.arms.first(where: { $0.arm == arm }) else { return Array(repeating: "", count: 9) }
        return [
            number(percentile.percentile), String(row.values), number(row.quantile), number(row.standardError), number(row.difference),
            number(row.lower), number(row.upper), number(row.pValue), number(row.adjustedPValue),
        ]
    }

    /// A number as Swift writes it back exactly ("468", "0.0936", "1e-07"); empty when absent.
    static func number(_ value: Double?) -> String {
        guard let value else { return "" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A name as a CSV field: quoted when it holds a comma, quote or line break, and kept from
    /// being read as a formula by a spreadsheet (a leading =, +, -, @, tab or return gets a ').
    static func text(_ value: String) -> String {
        var field = value
        if let first = field.first, "=+-@\t\r".contains(first) { field = "'" + field }
        guard field.contains(where: { ",\"\r\n".contains($0) }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
