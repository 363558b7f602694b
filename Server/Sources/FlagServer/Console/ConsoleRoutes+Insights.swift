import FlagServerModel
import Foundation

/// The flag page's "Insights" section: evaluations per variant over time with the flag's changes
/// marked, units per variant, the split by app version and platform, sessions and crashes per
/// app version, platform and variant, and when the flag was last evaluated, for the environment
/// the page shows.
extension ConsoleRoutes {
    /// The ranges the section offers (`?insights=`), each ending now: its buckets and their count.
    static let insightsWindows: [(key: String, label: String, granularity: RollupGranularity, buckets: Int)] = [
        ("24h", "24 hours", .hour, 24),
        ("7d", "7 days", .hour, 7 * 24),
        ("30d", "30 days", .day, 30),
        ("90d", "90 days", .day, 90),
    ]
    static let defaultInsightsWindow = "7d"

    /// The range of the window `key` (the default one for an unknown key) ending at `now`: whole
    /// buckets, the last one holding `now`.
    static func insightsRange(window key: String?, now: Date) -> InsightsRange {
        let window = insightsWindows.first { $0.key == key } ?? insightsWindows.first { $0.key == defaultInsightsWindow }!
        let length = window.granularity.milliseconds
        let end = window.granularity.bucket(of: InsightsRange.milliseconds(now)) + length
        // Whole buckets, and no more than a range may have (InsightsRangeTests checks the windows).
        return InsightsRange(buckets: end - Int64(window.buckets) * length, to: end, granularity: window.granularity)
    }

    /// The section's template values for `flag` in `environment`.
    func insightsContext(flag: FlagRecord, environment: String, window requested: String?, state: ServerState) async -> [String: Any] {
        let window = Self.insightsWindows.first { $0.key == requested }?.key ?? Self.defaultInsightsWindow
        var context: [String: Any] = [
            "environment": environment,
            "windows": Self.insightsWindows.map { option -> [String: Any] in
                [
                    "label": option.label, "current": option.key == window,
                    "href": "?environment=\(Self.escaped(environment))&insights=\(option.key)#insights",
                ]
            },
        ]
        guard let eventStore else {
            context["noStore"] = true
            return context
        }
        let insights: FlagInsights
        do {
            insights = try await FlagInsights.read(
                flag: flag, environment: environment, range: Self.insightsRange(window: window, now: now()), events: eventStore,
                store: admin.store, flags: state.flags, splitLimit: 8)
        } catch {
            context["failure"] = "The insights could not be read: \(error)"
            return context
        }
        let label = Self.insightsWindows.first { $0.key == window }?.label ?? window
        context["lastEvaluated"] = insights.lastEvaluated.map { "Last evaluated \(Self.shortTime($0))." }
            ?? "Never evaluated in \(environment) as far as the events received tell."
        context["revisions"] = insights.revisions.map { revision -> [String: Any] in
            [
                "revision": revision.revision, "time": Self.shortTime(revision.time), "actor": revision.actor,
                "summary": revision.summary, "revert": revision.revert,
            ]
        }
        context["hasRevisions"] = !insights.revisions.isEmpty
        context["revisionsIncomplete"] = !insights.revisionsComplete
        if let health = insights.sessionHealth, health.rows.contains(where: { !$0.variant.isEmpty }) {
            context["sessionHealth"] = Self.sessionHealthContext(health)
        }
        if insights.isEmpty {
            context["empty"] = "No evaluations of \(flag.key) in \(environment) were received in the last \(label)."
            return context
        }
        context["hasData"] = true
        let chart = InsightsChart(insights: insights, id: "insights-chart")
        context["chart"] = chart.svg
        context["chartTitle"] = chart.title
        let shown = insights.variants.enumerated().filter { $0.element.totalEvaluations > 0 || $0.element.totalExposures > 0 }
        context["legend"] = shown.map { position, series -> [String: Any] in
            [
                "name": InsightsChart.name(series.variant), "class": InsightsChart.seriesClass(position),
                "total": InsightsChart.number(series.totalEvaluations),
            ]
        }
        // The chart's numbers, one row per bucket.
        let hourly = insights.granularity == RollupGranularity.hour.rawValue
        context["tableVariants"] = shown.map { InsightsChart.name($0.element.variant) }
        context["tableRows"] = insights.buckets.indices.map { index -> [String: Any] in
            [
                "label": InsightsChart.label(insights.buckets[index], hourly: hourly),
                "cells": shown.map { InsightsChart.number($0.element.evaluations[index]) },
            ]
        }
        context["granularity"] = insights.granularity
        context["totalEvaluations"] = InsightsChart.number(insights.totalEvaluations)
        context["totalExposures"] = InsightsChart.number(insights.totalExposures)
        let peak = insights.units.variants.map(\.peakDailyUnits).max() ?? 0
        context["units"] = insights.units.variants.enumerated().filter { $0.element.unitDays > 0 }.map { position, series -> [String: Any] in
            [
                "name": InsightsChart.name(series.variant), "peak": InsightsChart.number(series.peakDailyUnits),
                "unitDays": InsightsChart.number(series.unitDays),
                "bar": InsightsChart.bar(series.peakDailyUnits, of: peak, position: position),
            ]
        }
        context["hasUnits"] = insights.units.variants.contains { $0.unitDays > 0 }
        context["unitDayCount"] = insights.units.days.count
        context["appVersions"] = Self.splitRows(insights.appVersions, total: insights.totalEvaluations, none: "(not sent)")
        context["platforms"] = Self.splitRows(insights.platforms, total: insights.totalEvaluations, none: "(not sent)")
        return context
    }

    /// The table of sessions and crashes per app version, platform and variant, with its totals.
    static func sessionHealthContext(_ health: FlagInsights.SessionHealth) -> [String: Any] {
        func rate(_ crashes: Int, _ sessions: Int) -> String {
            // A no-break space keeps "1.25 %" on one line.
            sessions > 0 ? String(format: "%.2f\u{00A0}%%", Double(crashes) * 100 / Double(sessions)) : "—"
        }
        var context: [String: Any] = [
            "rows": health.rows.map { row -> [String: Any] in
                [
                    "appVersion": row.appVersion.isEmpty ? "(not sent)" : row.appVersion,
                    "platform": row.platform.isEmpty ? "(not sent)" : row.platform,
                    "variant": row.variant.isEmpty ? "(no variant)" : row.variant, "withoutVariant": row.variant.isEmpty,
                    "sessions": InsightsChart.number(row.sessions), "crashes": InsightsChart.number(row.crashes),
                    "rate": rate(row.crashes, row.sessions),
                ]
            },
            "sessions": InsightsChart.number(health.sessions), "crashes": InsightsChart.number(health.crashes),
            "rate": rate(health.crashes, health.sessions), "incomplete": !health.complete,
            "limit": FlagInsights.sessionHealthLimit,
        ]
        if health.sessionsWithoutVariant > 0 {
            context["without"] =
                "\(InsightsChart.number(health.sessionsWithoutVariant)) of the sessions and \(InsightsChart.number(health.crashesWithoutVariant)) of the crashes named no variant of this flag."
        }
        return context
    }

    /// The rows of a split table: each value, then "other" when values were added up.
    static func splitRows(_ split: FlagInsights.Split, total: Int, none: String) -> [[String: Any]] {
        func row(_ value: String, _ entry: FlagInsights.SplitRow) -> [String: Any] {
            [
                "value": value, "evaluations": InsightsChart.number(entry.evaluations),
                "exposures": InsightsChart.number(entry.exposures),
                // A no-break space keeps "12.5 %" on one line.
                "share": total > 0 ? String(format: "%.1f\u{00A0}%%", Double(entry.evaluations) * 100 / Double(total)) : "—",
                "variants": entry.variants.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                    .map { "\(InsightsChart.name($0.key)) \(InsightsChart.number($0.value))" }.joined(separator: ", "),
            ]
        }
        var rows = split.values.map { row($0.value.isEmpty ? none : $0.value, $0) }
        if let other = split.other {
            rows.append(row("other (\(other.valueCount) more)", other))
        }
        return rows
    }
}
