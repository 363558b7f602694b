import FlagEvaluation
@testable import FlagServer
import FlagStatistics
import Foundation
import NIOHTTP1
import Testing

/// An experiment's multiple-comparison correction decides: three arms whose always-valid
/// p-values are about 0.02, 0.03 and 0.04 are all significant at α = 0.05 after
/// Benjamini–Hochberg (each adjusted to 0.04) and none after Holm (the smallest becomes 0.06).
/// Dunnett, which holds for a fixed-horizon test only, is refused for an experiment (422).
struct ExperimentCorrectionTests {
    static let day: Int64 = 86_400_000
    static let arms = ["off", "a", "b", "c"]

    /// z statistics whose always-valid p-values (τ = 0.1σ, 10,000 units per arm, σ = 1) are
    /// 0.020, 0.030 and 0.040: log Λ = ½ ln(V/(V + τ²)) + τ²z²/(2(V + τ²)), V = 2·10⁻⁴.
    static let z = ["a": 3.4628, "b": 3.3412, "c": 3.2522]

    static func report(_ correction: MultipleComparisonCorrection) -> ExperimentReport {
        let units = 10_000.0
        let standardError = (2 / units).squareRoot()
        func arm(_ mean: Double) -> ArmStatistics {
            ArmStatistics(units: units, sum: units * mean, sumOfSquares: (units - 1) + units * mean * mean)
        }
        var statistics = ["off": arm(0)]
        for (name, z) in z { statistics[name] = arm(z * standardError) }
        let query = ExperimentResultsQuery(
            experiment: "exp-1", environment: "production", flag: "checkout", arms: arms, start: 0, end: nil,
            metrics: [.init(key: "revenue", event: "purchase", kind: .mean, window: 7 * day, covariate: false)])
        let totals = ExperimentTotals(
            units: Dictionary(uniqueKeysWithValues: arms.map { ($0, Int(units)) }), reassignedUnits: [:],
            metrics: ["revenue": statistics], daily: [], countedThrough: day)
        let settings = ExperimentReport.Settings(
            control: "off", allocation: Dictionary(uniqueKeysWithValues: arms.map { ($0, 1.0) }), alpha: 0.05, status: "Running",
            hypothesis: "", metrics: ["revenue": .init(name: "Revenue")], correction: correction)
        return ExperimentReport(query: query, totals: totals, settings: settings)
    }

    @Test func theRawAlwaysValidPValuesAreTheOnesIntended() throws {
        let analysis = try #require(Self.report(.bh).analysis)
        for comparison in analysis.metrics[0].comparisons {
            let intended = ["a": 0.02, "b": 0.03, "c": 0.04][comparison.arm]!
            #expect(abs(comparison.sequential.pValue - intended) < 2e-4, "\(comparison.arm): \(comparison.sequential.pValue)")
        }
    }

    @Test func benjaminiHochbergCallsAllThreeArmsBetter() throws {
        let report = Self.report(.bh)
        #expect(report.correction == .bh)
        #expect(report.decision.state == .significant && report.decision.direction == .better)
        for arm in report.metrics[0].arms.dropFirst() {
            #expect(arm.decision?.state == .significant)
            #expect(arm.decision?.text.contains("after Benjamini–Hochberg across 3 comparisons") == true, "\(arm.decision?.text ?? "")")
        }
    }

    @Test func holmKeepsCollectingOnTheSameData() throws {
        let report = Self.report(.holm)
        #expect(report.correction == .holm)
        #expect(report.analysis?.sequentialCorrection == .holm)
        #expect(report.data.correction == .holm)
        #expect(report.decision.state == .keepCollecting)
        #expect(report.decision.text.contains("with Holm across 3 comparisons"), "\(report.decision.text)")
        for arm in report.metrics[0].arms.dropFirst() {
            let decision = try #require(arm.decision)
            #expect(decision.state == .keepCollecting)
            #expect(decision.text.contains("but not after Holm across 3 comparisons"), "\(decision.text)")
            let comparison = try #require(arm.comparison)
            #expect(comparison.sequential.adjustedPValue > 0.05)
        }
    }

    @Test func theReportPageNamesTheCorrectionThatDecided() {
        let holm = ConsoleRoutes.bhStatement(Self.report(.holm))
        #expect(holm.contains("every p-value is adjusted by Holm across all 3"), "\(holm)")
        #expect(holm.contains("the chance of any false finding"))
        let bh = ConsoleRoutes.bhStatement(Self.report(.bh))
        #expect(bh.contains("every p-value is adjusted by Benjamini–Hochberg across all 3"), "\(bh)")
    }

    @Test func dunnettInASettingDecidesWithHolm() throws {
        // The report never decides a sequential test by Dunnett: given, its decision is Holm's.
        let report = Self.report(.dunnett)
        #expect(report.correction == .holm)
        #expect(report.decision.state == .keepCollecting)
        #expect(report.analysis?.correction == .dunnett)
    }

    @Test func theAPIStoresHolmAndRefusesDunnett() async throws {
        let events = ExperimentResultsEventStore(totals: ExperimentResultsEventStore.sample())
        try await ExperimentAPITests.withExperiment(start: false, eventStore: events) { server in
            let token = server.adminToken
            let base = ExperimentAPITests.production + "/experiments"
            let refused = try await server.request(
                .POST, base, token: token,
                body: #"{"id": "exp-2", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "correction": "dunnett"}"#)
            #expect(refused.status == 422)
            let problem = refused.json?["error"]?["problems"]?.arrayValue?.first
            #expect(problem?["field"] == "correction")
            #expect(problem?["problem"]?.stringValue?.contains("sequential test") == true)
            #expect(try await server.request(.GET, base + "/exp-2", token: token).status == 404)

            let created = try await server.request(
                .POST, base, token: token,
                body: #"{"id": "exp-2", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "correction": "holm"}"#)
            #expect(created.status == 201)
            #expect(created.json?["correction"] == "holm")
            #expect(try await server.request(.GET, base + "/exp-2", token: token).json?["correction"] == "holm")
            // An update without the field goes back to the default.
            let replaced = try await server.request(
                .PUT, base + "/exp-2", token: token,
                body: #"{"flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "correction": "dunnett"}"#)
            #expect(replaced.status == 422)
            #expect(try await server.request(.GET, base + "/exp-2", token: token).json?["correction"] == "holm")
            // The results name the correction that decides.
            let started = try await server.request(.POST, base + "/exp-2/start", token: token, body: "{}")
            #expect(started.status == 200)
            let results = try await server.request(.GET, base + "/exp-2/results", token: token)
            #expect(results.status == 200)
            #expect(results.json?["correction"] == "holm", "\(results.body)")
        }
    }
}
