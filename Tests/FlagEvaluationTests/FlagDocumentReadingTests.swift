import Foundation
import Testing

@_spi(Differential) @testable import FlagEvaluation

/// Loading reads a document's `"flags"` object and each flag object member by member from the
/// bytes, instead of parsing the whole document into a `JSONValue` tree first. Both paths must
/// give the same flags and the same errors, word for word and at the same line and column.
struct FlagDocumentReadingTests {
    /// Everything a load produces, as text, so that a difference shows where it is.
    static func outcome(_ sources: [FlagSource], throughJSONValue: Bool) -> String {
        let (definitions, errors, compiledNodes) = FlagDefinitions.loadCountingWork(sources, throughJSONValue: throughJSONValue)
        var lines = errors.map { "error: \($0) [\($0.effect)]" }
        lines.append("compiled nodes: \(compiledNodes)")
        for key in definitions.keys {
            let flag = definitions.flags[key]!
            lines.append(
                [
                    "flag \(key): \(flag.state) \(flag.variantType) default=\(flag.defaultVariant ?? "-") source=\(flag.source)",
                    "variants=\(JSONValue.object(flag.variants).serialized())",
                    "metadata=\(JSONValue.object(flag.metadata).serialized())",
                    "targeting=\(flag.targetingJSON?.serialized() ?? "-") hasTargeting=\(flag.hasTargeting)",
                ].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    static func expectSameOutcome(_ data: Data, name: String = "doc.json", sourceLocation: SourceLocation = #_sourceLocation) {
        let sources = [FlagSource(name: name, data: data)]
        let read = outcome(sources, throughJSONValue: false)
        let reference = outcome(sources, throughJSONValue: true)
        #expect(read == reference, "\(name)", sourceLocation: sourceLocation)
    }

    static let flag = #"{"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}"#

    /// Documents the loader rejects in part or in whole, one per kind of problem.
    static let documents: [String] = [
        "", "  ", "[]", "5", "null", #""flags""#, "{}", #"{"flags": 5}"#, #"{"flags": "x"}"#, #"{"flags": null}"#,
        #"{"flags": {}}"#, #"{"flags": []}"#,
        #"{"flags": [{"key": "a", "state": "ENABLED", "variants": {"on": true}}, {"nokey": 1}, 5, {"key": ""}]}"#,
        #"{"$schema": "https://flagd.dev/schema/v0/flags.json", "flags": [{"key": "a"}]}"#,
        #"{"flags": {"a": 5, "b": [], "c": null, "d": "x", "": \#(flag), "e": \#(flag)}}"#,
        // Duplicate keys: of a flag, inside a flag, at the top, in a large object, in a value.
        #"{"flags": {"a": \#(flag), "a": \#(flag)}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "state": "DISABLED"}}}"#,
        #"{"flags": {"a": \#(flag)}, "flags": {"b": \#(flag)}}"#,
        #"{"flags": {"a": \#(flag)}, "flags": 5}"#,
        #"{"flags": 5, "flags": {"a": \#(flag)}}"#,
        #"{"$evaluators": {}, "flags": {}, "$evaluators": {}}"#,
        #"{"flags": {"a": {"variants": {"x": 1, "x": 2}}}}"#,
        #"{"flags": {"a": 1, "b": 2, "c": 3, "b": 4, "a": 5}}"#,
        "{\"flags\": {" + (0..<40).map { "\"k\($0 % 37)\": \($0)" }.joined(separator: ", ") + "}}",
        "{\"flags\": {" + (0..<30).map { "\"k\($0)\": \(flag)" }.joined(separator: ",\n") + ", \"k7\": 1, \"k3\": 2}}",
        // Syntax, at several lines and columns.
        #"{"flags": {"a": \#(flag),}}"#,
        "{\"flags\": {\n  \"a\" \(flag)\n}}",
        #"{"flags": {"a": \#(flag)"#,
        #"{"flags": {"a": \#(flag)}}} "#,
        #"{"flags": {"a": \#(flag)}} x"#,
        #"{"flags": {1: 2}}"#,
        #"{"flags": {"a\q": 1}}"#,
        #"{"flags": {"unterminated: 1}}"#,
        "{\"flags\": {\"a\": {\"state\": \"EN\u{01}ABLED\"}}}",
        #"{"flags": {"a": {"extra": [1, ], "state": "ENABLED"}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}} "b": 1}}"#,
        #"{"flags" {}}"#, #"{"flags": {"a" {}}}"#, #"{"flags": {"a": {"state" "x"}}}"#, #"{"flags": {"a": {"state": "x",}}}"#,
        #"{"other": [1, 2, {"x": tru}], "flags": {}}"#,
        "\u{FEFF}{\"flags\": {\"a\": \(flag)}}",
        // Numbers out of range, anywhere in a flag.
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"big": 99999999999999999999}}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": 1e400}}}}"#,
        #"{"flags": {"a": {"metadata": {"tiny": 1e-400}}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": -0.0e5, "n": 01}}}}"#,
        // What the loader reports about members.
        #"{"flags": {"a": {"variants": {"on": true}}, "b": {"state": "ON", "variants": {"on": true}}, "c": {"state": 1}}}"#,
        #"{"flags": {"a": {"state": "ENABLED"}, "b": {"state": "ENABLED", "variants": []}, "c": {"state": "ENABLED", "variants": {}}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1, "y": "s"}}, "b": {"state": "ENABLED", "variants": {"": 1}}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": null}}, "b": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": "y"}}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": 5}, "b": {"state": "DISABLED", "variants": {"x": {"k": [1]}}, "defaultVariant": null}}}"#,
        #"{"metadata": {"team": "a", "bad": [1], "version": 2}, "flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "metadata": {"team": "b", "n": {"o": 1}}}, "b": {"state": "ENABLED", "variants": {"x": 1}, "metadata": 5}, "c": {"state": "ENABLED", "variants": {"x": 1}, "metadata": {"team": "c"}}}}"#,
        #"{"metadata": [], "flags": {"a": \#(flag)}}"#,
        #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "x"}, 1]}, "on", "off"]}}, "b": {"state": "ENABLED", "variants": {"on": true}, "targeting": {}}, "c": {"state": "ENABLED", "variants": {"on": true}, "targeting": 5}, "d": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"nope": [1]}}, "e": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"if": [true]}}}}"#,
        #"{"$evaluators": {"pro": {"in": [{"var": "plan"}, ["pro"]]}, "bad": 5, "broken": {"nope": 1}}, "flags": {"a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "targeting": {"if": [{"$ref": "pro"}, "on", "off"]}}, "b": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"$ref": "missing"}}, "c": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"$ref": "broken"}}}}"#,
        #"{"$evaluators": 5, "flags": {"a": \#(flag)}}"#,
        #"{"flags": {"a": {"key": "ignored", "description": "x", "state": "ENABLED", "variants": {"on": true}, "unknown": {"deep": [[{}]]}}}}"#,
        #"{"flags": {"\u00e9t\u00e9": \#(flag), "e\u0301te\u0301": \#(flag), "a/b~c": {"state": 1}}}"#,
    ]

    @Test(arguments: documents.indices)
    func aMalformedOrUnusualDocumentLoadsAsThroughAJSONValue(index: Int) {
        Self.expectSameOutcome(Data(Self.documents[index].utf8), name: "document \(index)")
    }

    @Test(arguments: [98, 99, 100, 101])
    func nestingAtAndPastTheDepthLimitLoadsAsThroughAJSONValue(levels: Int) {
        // The document, "flags" and the flag are 3 levels; the rule adds the rest.
        let rule = String(repeating: "[", count: levels - 3) + String(repeating: "]", count: levels - 3)
        let json = #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "targeting": \#(rule)}}}"#
        Self.expectSameOutcome(Data(json.utf8), name: "\(levels) levels")
        let deepFlag = #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"if": \#(rule)}}}}"#
        Self.expectSameOutcome(Data(deepFlag.utf8), name: "\(levels) levels under an operator")
    }

    @Test func invalidUTF8InAFlagKeyOrAMemberNameLoadsAsThroughAJSONValue() {
        for bytes: [UInt8] in [
            Array(#"{"flags": {"a"#.utf8) + [0xFF] + Array(#"": {}}}"#.utf8),
            Array(#"{"flags": {"a": {"st"#.utf8) + [0xC3, 0x28] + Array(#"": 1}}}"#.utf8),
            Array(#"{"fl"#.utf8) + [0xE2, 0x82] + Array(#"": {}}"#.utf8),
        ] {
            Self.expectSameOutcome(Data(bytes), name: "\(bytes)")
        }
    }

    @Test func theNewPathReportsTheSameErrorThatAJSONValueParseThrows() {
        // Pinned text, so that both paths cannot drift together.
        let json = "{\"flags\": {\n  \"a\": \(Self.flag),\n  \"a\": \(Self.flag)\n}}"
        let (_, errors) = FlagDefinitions.load([FlagSource(name: "dup.json", json: json)])
        #expect(errors.map(\.description) == [
            #"dup.json: invalid JSON at line 3, column 3: at "/flags": duplicate key "a" in an object; each key may appear only once (source skipped)"#
        ])
    }

    @Test func twoSourcesLoadAsThroughAJSONValue() {
        let first = FlagSource(name: "first.json", json: #"{"flags": {"a": \#(Self.flag), "b": {"state": 1}}}"#)
        let second = FlagSource(name: "second.json", json: #"{"flags": {"a": {"state": "DISABLED", "variants": {"x": "y"}}}}"#)
        #expect(
            Self.outcome([first, second], throughJSONValue: false) == Self.outcome([first, second], throughJSONValue: true))
    }

    /// A flag keeps where its rule's text is in the document's bytes; a document that is a
    /// slice of larger `Data` (its indices not starting at 0) gives the same rules, and the
    /// rules outlive the caller's copy of the bytes.
    @Test func targetingTextIsReadFromADocumentSlice() {
        let document = #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}}, "b": \#(Self.flag)}}"#
        var padded = Data("garbage before the document {[\"".utf8)
        let start = padded.count
        padded.append(contentsOf: document.utf8)
        padded.append(contentsOf: "\"]} and after".utf8)
        let slice = padded[start..<(start + document.utf8.count)]
        #expect(slice.startIndex == start)
        let (definitions, errors) = FlagDefinitions.load([FlagSource(name: "slice.json", data: slice)])
        padded = Data()
        #expect(errors.isEmpty)
        #expect(
            definitions["a"]?.targetingJSON
                == (try? JSONValue(parsing: #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}"#)))
        #expect(definitions["b"]?.targetingJSON == nil)
        Self.expectSameOutcome(Data(document.utf8))
    }

    // MARK: - Conformance material

    static let conformanceFiles: [String] = {
        var paths = ["flagd-evaluator/flags/testkit-flags.json"]
        for folder in [
            "flagd-schemas/json/examples", "flagd-schemas/json/test/flags/positive",
            "flagd-schemas/json/test/flags/negative", "flagd-schemas/json/test/flagd/positive",
        ] where ConformanceFiles.exists(folder) {
            let files = (try? ConformanceFiles.jsonFiles(in: folder)) ?? []
            paths += files.map { "\(folder)/\($0.lastPathComponent)" }
        }
        return paths
    }()

    @Test(ConformanceMaterial.required("flagd-evaluator", "flagd-schemas"))
    func everyConformanceFlagFileLoadsAsThroughAJSONValue() throws {
        ConformanceFiles.requirePresent("flagd-evaluator")
        ConformanceFiles.requirePresent("flagd-schemas")
        #expect(Self.conformanceFiles.count > 10)
        for path in Self.conformanceFiles {
            Self.expectSameOutcome(try ConformanceFiles.data(path), name: path)
        }
    }
}
