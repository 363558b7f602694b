import FeatureFlags
import FlagManifest
import FlagServerClient

extension Manifest {
    /// Reads a manifest for a command and builds its registry; every problem becomes an
    /// ``ToolingError/Kind/invalidInput`` failure naming the file.
    public static func load(path: String) throws(ToolingError) -> (Manifest, FlagRegistry) {
        let manifest: Manifest
        do {
            manifest = try ManifestReader().read(contentsOfFile: path)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        do {
            return (manifest, try manifest.registry())
        } catch {
            throw ToolingError(.invalidInput, "\(path): \(error.description)")
        }
    }
}
