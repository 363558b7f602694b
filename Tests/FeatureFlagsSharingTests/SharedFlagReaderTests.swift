import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsSharing

/// A reader never crashes: a missing, newer or corrupt file gives code defaults and says why.
struct SharedFlagReaderTests {
    private func expectDefaults(_ shared: SharedFlagSnapshot<SharedFlag>) {
        #expect(!shared[.darkMode])
        #expect(shared[.widgetsRedesign])
        #expect(shared.value(SharedFlag.pageSize) == 20)
        #expect(shared.value(SharedFlag.apiToken) == "none")
        #expect(shared.revision == 0)
        #expect(shared.entry(.widgetsRedesign) == nil)
    }

    @Test func noFileGivesCodeDefaults() {
        let container = Container()
        let shared = container.reader.read()
        #expect(shared.status == .missing)
        expectDefaults(shared)
    }

    @Test func aNewerFormatSaysSoAndGivesCodeDefaults() throws {
        let container = Container()
        try container.write(
            #"{"format":2,"revision":"9","publishedAt":0,"flags":{"dark_mode":{"value":true,"layer":"override"}}}"#)
        let shared = container.reader.read()
        #expect(shared.status == .newerFormat(found: 2, supported: 1))
        #expect("\(shared.status)".contains("format 2, this build reads 1"))
        expectDefaults(shared)
    }

    @Test(arguments: [
        ("", "the file is empty"),
        (#"{"format":1,"revision":"1","publishedAt":0,"flags":{"dark_mode":{"value":tr"#, "it is not a JSON object"),
        ("[1, 2]", "it is not a JSON object"),
        (#"{"revision":"1"}"#, "it has no integer 'format'"),
        (#"{"format":0,"revision":"1","publishedAt":0,"flags":{}}"#, "its 'format' 0 is not one any build wrote"),
        (#"{"format":1,"revision":1,"publishedAt":0,"flags":{}}"#, "its 'revision' is not a decimal string"),
        (#"{"format":1,"revision":"-1","publishedAt":0,"flags":{}}"#, "its 'revision' is not a decimal string"),
        (#"{"format":1,"revision":"1","flags":{}}"#, "its 'publishedAt' is not a number"),
        (#"{"format":1,"revision":"1","publishedAt":0,"flags":[]}"#, "its 'flags' is not an object"),
        (
            #"{"format":1,"revision":"1","publishedAt":0,"flags":{"dark_mode":true}}"#,
            "its flag 'dark_mode' is not an object with a 'value' and a known 'layer'"
        ),
        (
            #"{"format":1,"revision":"1","publishedAt":0,"flags":{"dark_mode":{"value":true,"layer":"cloud"}}}"#,
            "its flag 'dark_mode' is not an object with a 'value' and a known 'layer'"
        ),
        (
            #"{"format":1,"revision":"1","publishedAt":0,"flags":{"dark_mode":{"value":true,"layer":"remote","variant":3}}}"#,
            "its flag 'dark_mode' has a 'variant' that is not a string"
        ),
        (
            #"{"format":1,"revision":"1","publishedAt":0,"buildConfiguration":"beta","flags":{}}"#,
            "its 'buildConfiguration' is not one of [debug, alpha, internal, release]"
        ),
        (#"{"format":1,"revision":"1","publishedAt":0,"flags":{},"withheld":[1]}"#, "its 'withheld' is not an array of keys"),
    ])
    func aCorruptFileSaysWhyAndGivesCodeDefaults(text: String, reason: String) throws {
        let container = Container()
        try container.write(text)
        let shared = container.reader.read()
        #expect(shared.status == .unreadable(reason))
        expectDefaults(shared)
    }

    @Test func aFileLargerThanTheLimitIsNotRead() throws {
        let container = Container()
        let padding = String(repeating: " ", count: SharedFlagsFile.maximumSize)
        try container.write(#"{"format":1,"revision":"1","publishedAt":0,"flags":{}}"# + padding)
        let shared = container.reader.read()
        guard case .unreadable(let reason) = shared.status else {
            Issue.record("an oversized file read as \(shared.status)")
            return
        }
        #expect(reason.contains("more than the \(SharedFlagsFile.maximumSize) a reader accepts"))
        expectDefaults(shared)
    }

    /// Each value goes through the reader's own declaration, like any layer in the app.
    @Test func valuesTheDeclarationRefusesReadAsCodeDefaults() throws {
        let container = Container()
        try container.write(
            #"""
            {"format":1,"revision":"4","publishedAt":1795000000.5,"buildConfiguration":"alpha",
             "flags":{"dark_mode":{"value":"yes","layer":"override"},"page_size":{"value":500,"layer":"remote"},
                      "checkout":{"value":true,"layer":"remote","variant":"b"},"retired_flag":{"value":true,"layer":"build"}},
             "withheld":["api_token","retired_secret"]}
            """#)
        let shared = container.reader.read()
        #expect(shared.status == .published)
        #expect(shared.revision == 4)
        #expect(shared.publishedAt == Date(timeIntervalSince1970: 1_795_000_000.5))
        #expect(shared.buildConfiguration == .alpha)
        #expect(shared.refusedKeys == ["dark_mode", "page_size"])
        #expect(!shared[.darkMode])
        #expect(shared.value(SharedFlag.pageSize) == 20)
        #expect(shared[.checkout])
        #expect(shared.entry(.checkout)?.variant == "b")
        #expect(shared.value(forKey: "retired_flag") == nil)
        #expect(shared.withheldKeys == ["api_token"])
    }

    /// A revision past `Int32.max` reads on a 32-bit watch too: it is written as a string.
    @Test func aRevisionBeyondThirtyTwoBitsRoundTrips() throws {
        let container = Container()
        let revision = UInt64(Int64.max) + 7
        try container.write(#"{"format":1,"revision":"\#(revision)","publishedAt":0,"flags":{}}"#)
        #expect(container.reader.read().revision == revision)
    }
}
