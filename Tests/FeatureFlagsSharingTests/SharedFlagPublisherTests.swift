import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Testing

@testable import FeatureFlagsSharing

/// The app publishes what it shows; an extension reads the same values, layers and variants.
struct SharedFlagPublisherTests {
    @Test func anExtensionReadsTheValuesTheAppShowsOverridesIncluded() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        let change = try #require(try publisher.publish())
        #expect(change.revision == 1)

        let shared = container.reader.read()
        #expect(shared.status == .published)
        #expect(shared.revision == 1)
        #expect(shared.buildConfiguration == .debug)
        for flag in SharedFlag.allCases {
            #expect(shared.isEnabled(flag) == flags.isEnabled(flag), "\(flag)")
            #expect(shared.entry(flag)?.layer == flags.details(flag).layer, "\(flag)")
        }
        #expect(shared[.darkMode])
        #expect(shared.entry(.darkMode)?.layer == .override)
        #expect(
            shared.entry(.checkout)
                == SharedFlagSnapshot<SharedFlag>.Entry(value: true, layer: .remote, variant: "treatment", isSensitive: false))
        #expect(shared.value(SharedFlag.pageSize) == 50)
        #expect(flags.value(SharedFlag.pageSize) == 50)
        #expect(shared.entry(forKey: "page_size")?.layer == .override)
        #expect(container.contents() == [SharedFlagsFile.defaultFileName])
    }

    @Test func sensitiveValuesAreWithheldByDefault() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        #expect(flags.value(SharedFlag.apiToken) == "s3cret-token")
        try SharedFlagPublisher(flags: flags, file: container.file).publish()

        #expect(try !container.text().contains("s3cret"))
        let shared = container.reader.read()
        #expect(shared.value(SharedFlag.apiToken) == "none")
        #expect(shared.entry(forKey: "api_token") == nil)
        #expect(shared.withheldKeys == ["api_token"])
    }

    @Test func sensitiveValuesSharedOnRequestStayRedactedInDescriptions() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        try SharedFlagPublisher(flags: flags, file: container.file, sharingSensitiveValues: true).publish()

        let shared = container.reader.read()
        #expect(shared.value(SharedFlag.apiToken) == "s3cret-token")
        #expect(shared.withheldKeys.isEmpty)
        let entry = try #require(shared.entry(forKey: "api_token"))
        #expect(entry.isSensitive)
        #expect("\(entry)" == "<REDACTED> [override]")
        #expect(!"\(shared)".contains("s3cret"))
    }

    @Test func anUnchangedPublicationWritesNothingAndAChangeRaisesTheRevision() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        try publisher.publish()
        let written = try container.text()

        #expect(try publisher.publish() == nil)
        #expect(try container.text() == written)

        flags.setOverride(.widgetsRedesign, to: false)
        flags.setOverride(SharedFlag.pageSize, to: 70)
        let change = try #require(try publisher.publish())
        #expect(change == SharedFlagsChange(revision: 2, changedKeys: ["page_size", "widgets_redesign"]))
        let shared = container.reader.read()
        #expect(shared.revision == 2)
        #expect(!shared[.widgetsRedesign])
        #expect(shared.value(SharedFlag.pageSize) == 70)
    }

    /// The next launch's publisher continues the file's revision, so extensions never see it go
    /// back, and writes nothing when the flags are the same.
    @Test func aNewPublisherContinuesTheFilesRevision() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        try SharedFlagPublisher(flags: flags, file: container.file).publish()
        flags.setOverride(.checkout, to: false)
        try SharedFlagPublisher(flags: flags, file: container.file).publish()

        let relaunched = SharedFlagPublisher(flags: flags, file: container.file)
        #expect(try relaunched.publish() == nil)
        flags.setOverride(.checkout, to: nil)
        #expect(try relaunched.publish()?.revision == 3)
        #expect(container.reader.read().revision == 3)
    }

    /// Before configuration the app reads code defaults; the last launch's publication stays.
    @Test func flagsNotYetConfiguredAreNotPublished() throws {
        let container = Container()
        try SharedFlagPublisher(flags: FeatureFlagManager<SharedFlag>.app(), file: container.file).publish()
        let flags = FeatureFlagManager<SharedFlag>()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        #expect(try publisher.publish() == nil)
        #expect(container.reader.read()[.darkMode])

        flags.configure(FlagSetup(buildConfiguration: .release))
        #expect(try publisher.publish()?.revision == 2)
        #expect(!container.reader.read()[.darkMode])
        #expect(container.reader.read().buildConfiguration == .release)
    }

    @Test func anUnreadableFileIsReplaced() throws {
        let container = Container()
        try container.write("{\"format\": 99}")
        let flags = FeatureFlagManager<SharedFlag>.app()
        let logs = RecordingLogHandler()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file, logger: logs.logger)
        #expect(try publisher.publish()?.revision == 1)
        #expect(container.reader.read().status == .published)
        #expect(logs.lines.contains { $0.contains("format 99") })
    }

    /// The widget's signal: one element per written change, the second change too.
    @Test func runPublishesNowAndAfterEveryChangeAndSignalsEachOne() async throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        var changes = publisher.changes().makeAsyncIterator()
        let running = Task { await publisher.run() }
        defer { running.cancel() }

        #expect(await changes.next()?.revision == 1)
        flags.setOverride(.darkMode, to: false)
        #expect(await changes.next() == SharedFlagsChange(revision: 2, changedKeys: ["dark_mode"]))
        #expect(!container.reader.read()[.darkMode])
        flags.setOverride(SharedFlag.pageSize, to: 99)
        #expect(await changes.next() == SharedFlagsChange(revision: 3, changedKeys: ["page_size"]))
        #expect(container.reader.read().value(SharedFlag.pageSize) == 99)
    }

    /// What the widget shim runs: the body once per written change, on the main actor.
    @Test func onEachChangeRunsOncePerWrittenChange() async throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        let (seen, seenContinuation) = AsyncStream.makeStream(of: UInt64.self)
        let task = publisher.onEachChange { change in
            MainActor.assertIsolated()
            seenContinuation.yield(change.revision)
        }
        defer { task.cancel() }
        var revisions = seen.makeAsyncIterator()

        try publisher.publish()
        try publisher.publish()  // unchanged: nothing written, nothing signalled
        #expect(await revisions.next() == 1)
        flags.setOverride(.checkout, to: false)
        try publisher.publish()
        #expect(await revisions.next() == 2)
    }

    @Test func aFailedWriteThrowsAndLeavesThePreviousPublication() throws {
        let container = Container()
        let flags = FeatureFlagManager<SharedFlag>.app()
        let publisher = SharedFlagPublisher(flags: flags, file: container.file)
        try publisher.publish()
        let blocked = SharedFlagsFile(directory: container.file.url)  // a directory path under a file
        #expect(throws: (any Error).self) {
            try SharedFlagPublisher(flags: flags, file: blocked).publish()
        }
        #expect(container.reader.read().revision == 1)
    }
}
