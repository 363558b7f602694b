import FlagManifest
import Testing

struct ManifestTextEditorTests {
    let text = """
        {"flags": {
          "a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
          "b": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"requires": "a, c", "owner": "x"}},
          "c": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"owner": "y", "conflicts": "a"}}
        }}
        """

    @Test func removesTheFirstFlagAndItsRelationsKeepingFormatting() {
        #expect(ManifestTextEditor.removingFlag("a", from: text) == """
            {"flags": {
              "b": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"requires": "c", "owner": "x"}},
              "c": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"owner": "y"}}
            }}
            """)
    }

    @Test func removesTheLastFlag() {
        #expect(ManifestTextEditor.removingFlag("c", from: text) == """
            {"flags": {
              "a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
              "b": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"requires": "a", "owner": "x"}}
            }}
            """)
    }

    @Test func unknownFlagOrBadTextGivesNil() {
        #expect(ManifestTextEditor.removingFlag("z", from: text) == nil)
        #expect(ManifestTextEditor.removingFlag("a", from: "{") == nil)
    }

    @Test func removesTheOnlyFlag() {
        #expect(
            ManifestTextEditor.removingFlag("a", from: #"{"flags": {"a": {"state": "ENABLED"}}}"#)
                == #"{"flags": {}}"#)
    }
}
