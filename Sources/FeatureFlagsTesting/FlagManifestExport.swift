import FeatureFlags
import FlagManifest

/// Exports a registry declared in Swift to a flag manifest (a flagd flag-definition file), so
/// the `flags` command, code generation and a flag server can use it.
///
/// Call it from a test or a small executable and write the text to `flags.json`:
///
/// ```swift
/// @Test func manifestIsUpToDate() throws {
///     let text = try FlagManifestExport.jsonString(AppFlag.self)
///     #expect(text == (try String(contentsOfFile: "flags.json", encoding: .utf8)))
/// }
/// ```
public enum FlagManifestExport {
    /// The manifest of an enum of flags and its typed values.
    ///
    /// - Throws: ``FlagRegistryError`` when the declarations are inconsistent.
    public static func manifest<Key: FeatureFlagKey>(
        _ keys: Key.Type, flagSetID: String? = nil, version: String? = nil
    ) throws(FlagRegistryError) -> Manifest {
        try Manifest(keys, flagSetID: flagSetID, version: version)
    }

    /// The manifest of an enum of flags and its typed values, as JSON text.
    ///
    /// - Throws: ``FlagRegistryError`` when the declarations are inconsistent.
    public static func jsonString<Key: FeatureFlagKey>(
        _ keys: Key.Type, flagSetID: String? = nil, version: String? = nil
    ) throws(FlagRegistryError) -> String {
        try manifest(keys, flagSetID: flagSetID, version: version).jsonString()
    }
}
