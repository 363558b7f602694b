import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import Testing

/// The queue's file, bounds and drop counts.
struct FlagEventQueueTests {
    static let source = FlagEventSource(appVersion: "4.2", buildConfiguration: .release, platform: "TestOS")
    static let time = Date(timeIntervalSince1970: 1_900_000_000)

    final class File: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-queue-\(UUID().uuidString)")
        var url: URL { directory.appendingPathComponent("events.json") }
        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static func tracked(_ name: String, source: FlagEventSource = source) -> FlagEvent {
        .tracked(TrackedFlagEvent(name: name, value: nil, attributes: [:], unit: nil, variants: [:], time: time, source: source))
    }

    static func summary(_ flag: String, count: Int, at offset: TimeInterval) -> FlagEvent {
        .summary(
            FlagEvaluationSummary(
                flag: flag, variant: "on", reason: .split, count: count, start: time.addingTimeInterval(offset),
                end: time.addingTimeInterval(offset + 60), source: source))
    }

    static func ids() -> () -> String {
        var next = 0
        return {
            next += 1
            return "b\(next)"
        }
    }

    @Test func theCountBoundDropsTheOldestEventsAndReportsThemInTheNextBatch() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, limits: .init(maximumEvents: 3), makeID: Self.ids())
        try queue.append((0..<5).map { Self.tracked("e\($0)") })
        #expect(queue.pendingEvents == (2..<5).map { Self.tracked("e\($0)") })
        #expect(queue.dropped == FlagEventDropCounts(tracked: 2))
        let batch = try #require(try queue.nextBatch())
        #expect(batch.dropped == FlagEventDropCounts(tracked: 2))
        #expect(batch.events.map(\.name) == ["e2", "e3", "e4"])
        #expect(queue.dropped.isEmpty)
    }

    @Test func summariesMergeBeforeAnythingIsDropped() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, limits: .init(maximumEvents: 3), makeID: Self.ids())
        try queue.append([Self.summary("a", count: 10, at: 0), Self.summary("b", count: 1, at: 0), Self.tracked("t")])
        try queue.append([Self.summary("a", count: 5, at: 60), Self.summary("b", count: 2, at: 60)])
        #expect(queue.dropped.isEmpty)
        #expect(
            queue.pendingEvents == [
                .summary(
                    FlagEvaluationSummary(
                        flag: "a", variant: "on", reason: .split, count: 15, start: Self.time,
                        end: Self.time.addingTimeInterval(120), source: Self.source)),
                .summary(
                    FlagEvaluationSummary(
                        flag: "b", variant: "on", reason: .split, count: 3, start: Self.time,
                        end: Self.time.addingTimeInterval(120), source: Self.source)),
                Self.tracked("t"),
            ])
    }

    @Test func theByteBoundDropsExposuresAndTrackedEventsBeforeSummaries() throws {
        let file = File()
        let one = try JSONEncoder().encode(Self.tracked("e0")).count
        let queue = FlagEventQueue(url: file.url, limits: .init(maximumBytes: one * 3 + 10), makeID: Self.ids())
        try queue.append([Self.summary("a", count: 1, at: 0)] + (0..<4).map { Self.tracked("e\($0)") })
        #expect(queue.byteCount <= one * 3 + 10)
        #expect(queue.pendingEvents.first == Self.summary("a", count: 1, at: 0))
        #expect(queue.dropped.summaries == 0)
        #expect(queue.dropped.tracked >= 2)
        #expect(queue.pendingEvents.last == Self.tracked("e3"))
    }

    @Test func sessionHealthEventsGoFirstInABatchOfTheirOwn() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, limits: .init(batchEvents: 2), makeID: Self.ids())
        try queue.append([Self.tracked("checkout"), Self.summary("a", count: 3, at: 0), Self.tracked("$session")])
        try queue.append([Self.tracked("$crash"), Self.tracked("search"), Self.tracked("$error")])
        let health = try #require(try queue.nextBatch())
        #expect(health.events.map(\.name) == ["$session", "$crash"])
        #expect(health.isSessionHealthOnly)
        try queue.remove(batchId: health.batchId)
        let rest = try #require(try queue.nextBatch())
        #expect(rest.events.map(\.name) == ["$error"])
        try queue.remove(batchId: rest.batchId)
        // Then the others, in the order they were appended.
        let others = try #require(try queue.nextBatch())
        #expect(!others.isSessionHealthOnly)
        #expect(others.events.map(\.name) == ["checkout"])
        #expect(others.summaries.map(\.flag) == ["a"])
        try queue.remove(batchId: others.batchId)
        #expect(try queue.nextBatch()?.events.map(\.name) == ["search"])
    }

    @Test func batchesHoldOneAppsEventsWithinTheirLimits() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, limits: .init(batchEvents: 2), makeID: Self.ids())
        let older = FlagEventSource(appVersion: "4.1", buildConfiguration: .release, platform: "TestOS")
        try queue.append([Self.tracked("old", source: older), Self.tracked("a"), Self.tracked("b"), Self.tracked("c")])
        let first = try #require(try queue.nextBatch())
        #expect(first.source == older)
        #expect(first.events.map(\.name) == ["old"])
        // The formed batch stays first until it is removed.
        #expect(try queue.nextBatch() == first)
        try queue.remove(batchId: first.batchId)
        #expect(try queue.nextBatch()?.events.map(\.name) == ["a", "b"])
    }

    @Test func aNewQueueOnTheSameFileFindsEverything() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, makeID: Self.ids())
        try queue.append([Self.tracked("a"), Self.tracked("b")], dropped: FlagEventDropCounts(exposures: 4))
        let batch = try #require(try queue.nextBatch())
        try queue.append([Self.tracked("c")])
        try queue.recordFailure(retryAt: Self.time)

        let reopened = FlagEventQueue(url: file.url, makeID: Self.ids())
        #expect(reopened.openingProblem == nil)
        #expect(reopened.batches == [batch])
        #expect(reopened.batches.first?.dropped == FlagEventDropCounts(exposures: 4))
        #expect(reopened.pendingEvents == [Self.tracked("c")])
        #expect(reopened.failures == 1)
        #expect(reopened.notBefore == Self.time)
    }

    @Test func anUnreadableFileIsMovedAsideNotOverwritten() throws {
        let file = File()
        try FileManager.default.createDirectory(at: file.directory, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: file.url)
        let queue = FlagEventQueue(url: file.url, makeID: Self.ids())
        #expect(queue.isEmpty)
        #expect(queue.openingProblem?.contains("events.json.unreadable") == true)
        let aside = try Data(contentsOf: file.url.appendingPathExtension("unreadable"))
        #expect(String(decoding: aside, as: UTF8.self) == "{not json")
    }

    @Test func anAppendUnderAKeyIsMadeOnceAndTheKeyIsKeptWithTheEvents() throws {
        let file = File()
        let queue = FlagEventQueue(url: file.url, makeID: Self.ids())
        #expect(try queue.append([Self.tracked("crash")], once: "session:a"))
        #expect(try !queue.append([Self.tracked("crash")], once: "session:a"))
        // The key is in the file, with the events: a relaunch knows it.
        let reopened = FlagEventQueue(url: file.url, makeID: Self.ids())
        #expect(reopened.hasAppended(once: "session:a"))
        #expect(try !reopened.append([Self.tracked("crash")], once: "session:a"))
        #expect(reopened.pendingEvents == [Self.tracked("crash")])
        // Only the latest keys are remembered.
        for index in 0..<FlagEventQueue.rememberedKeys {
            try reopened.append([], once: "other:\(index)")
        }
        #expect(!reopened.hasAppended(once: "session:a"))
        #expect(reopened.hasAppended(once: "other:0"))
    }

    @Test func aFileWrittenBeforeKeysExistedOpens() throws {
        let file = File()
        try FileManager.default.createDirectory(at: file.directory, withIntermediateDirectories: true)
        try Data(#"{"batches":[],"dropped":{"exposures":0,"summaries":0,"tracked":0},"failures":0,"pending":[],"version":1}"#.utf8)
            .write(to: file.url)
        let queue = FlagEventQueue(url: file.url)
        #expect(queue.openingProblem == nil)
        #expect(!queue.hasAppended(once: "session:a"))
    }
}
