import ExampleFlags
import FeatureFlags
import Foundation
import Testing

/// A key that appears twice in a JSON object is an error naming the key and where it is, in
/// every reader built on the package's parser.
struct DuplicateKeyTests {
    @Test func parsingNamesTheKeyAndItsPlace() {
        let text = "{\n  \"page_size\": 20,\n  \"page_size\": 30\n}"
        #expect {
            try FlagValue.objectMembers(fromJSON: Data(text.utf8))
        } throws: { error in
            "\(error)"
                == #"invalid JSON at line 3, column 3: duplicate key "page_size" in an object; each key may appear only once"#
        }
    }

    @Test func nestedDuplicatesNameTheEnclosingObject() {
        let text = #"{"schemaVersion": 1, "flags": {"a": true, "b": false, "a": false}}"#
        #expect {
            try FlagValue(json: text)
        } throws: { error in
            "\(error)"
                == #"invalid JSON at "/flags" (line 1, column 55): duplicate key "a" in an object; each key may appear only once"#
        }
        #expect(throws: (any Error).self) { try FlagValue(json: #"{"schemaVersion": 1, "schemaVersion": 2}"#) }
        #expect(throws: (any Error).self) { try FlagValue(json: #"[{"key": "a", "value": 1, "key": "b"}]"#) }
    }

    @Test func keysThatDifferOnlyInEscapesAreTheSameKey() throws {
        #expect(throws: (any Error).self) { try FlagValue(json: #"{"a": 1, "\u0061": 2}"#) }
        #expect(try FlagValue(json: #"{"a": 1, "A": 2, "a ": 3}"#) == ["a": 1, "A": 2, "a ": 3] as FlagValue)
    }

    @Test func aDuplicateInsideALaunchArgumentObjectIsReported() {
        let registry = try! FlagRegistry(AppFlag.self)
        let (overrides, problems) = LaunchArgumentOverrides.parse(
            ["-ff.retry_policy", #"{"attempts": 1, "attempts": 2, "backoffSeconds": 0}"#], registry: registry)
        #expect(overrides.isEmpty)
        #expect(problems.count == 1)
        #expect(problems.first?.contains(#"duplicate key "attempts""#) == true)
    }

    @Test func theJSONFileStoreReportsTheDuplicateAndMovesTheFileAside() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        try Data(#"{"chat_view_redesign": true, "chat_view_redesign": false}"#.utf8).write(to: store.url)
        #expect {
            try store.load()
        } throws: { error in
            "\(error)".contains(#"duplicate key "chat_view_redesign""#)
        }
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
        #expect(directory.contents().count == 1)
    }

    @Test func theManagerSurfacesTheStoreMessage() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        try Data(#"{"ideas_drawer": true, "ideas_drawer": true}"#.utf8).write(to: store.url)
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        #expect(!flags.isEnabled(.ideasDrawer))
        #expect(flags.engine.diagnostics.contains {
            $0.kind == .unreadableStore && $0.message.contains(#"duplicate key "ideas_drawer""#)
        })
    }
}
