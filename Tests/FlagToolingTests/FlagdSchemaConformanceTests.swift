import FlagManifest
import Foundation
import Testing

/// The manifest reader against the flagd schema's own examples (conformance material: see
/// ``ConformanceMaterial`` for when these run, skip or fail).
struct FlagdSchemaConformanceTests {
    static let folder = ConformanceMaterial.current.url("flagd-schemas/json")

    @Test(ConformanceMaterial.required("flagd-schemas/json"))
    func conformanceMaterialIsPresent() {
        ConformanceMaterial.current.requirePresent("flagd-schemas/json")
    }

    /// Invalid flagd files are rejected, except invalid targeting rules: the manifest reader
    /// leaves `targeting` to the evaluation engine.
    @Test(ConformanceMaterial.required("flagd-schemas/json"))
    func negativeExamplesAreRejected() throws {
        let negatives = try FileManager.default.contentsOfDirectory(
            atPath: Self.folder.appendingPathComponent("test/flags/negative").path
        ).filter { $0.hasSuffix(".json") && $0 != "with-invalid-targeting.json" }
        #expect(negatives.count == 8)
        for name in negatives {
            let path = Self.folder.appendingPathComponent("test/flags/negative/\(name)").path
            #expect(throws: ManifestError.self, "\(name)") { try ManifestReader().read(contentsOfFile: path) }
        }
    }

    /// Valid flagd files with a default variant for every flag (a manifest needs the code
    /// default) and no foreign metadata are read.
    @Test(ConformanceMaterial.required("flagd-schemas/json"), arguments: [
        "test/flags/positive/example-simple.flagd.json", "test/flags/positive/example.flagd.json",
        "test/flags/positive/example.flagdimport.map.json", "test/flags/positive/with-valid-targeting.json",
        "examples/full.json", "examples/minimal.json",
    ])
    func positiveExamplesAreRead(path: String) throws {
        let manifest = try ManifestReader().read(contentsOfFile: Self.folder.appendingPathComponent(path).path)
        #expect(!manifest.flags.isEmpty)
    }

    @Test func nullDefaultVariantIsExplained() {
        let text = #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": null}}}"#
        #expect(throws: ManifestError(
            file: "a.json", line: 1, field: "flags.a.defaultVariant",
            message: "is null; a manifest flag needs a default variant, which is its code default.")) {
            try ManifestReader().read(text, file: "a.json")
        }
    }
}
