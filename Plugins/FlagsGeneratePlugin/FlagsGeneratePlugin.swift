import Foundation
import PackagePlugin

/// Generates the flag enum from a manifest in the target on every build.
///
/// Put the manifest among the target's sources as `flags.json` (the enum is `AppFlag`) or
/// `<EnumName>.flags.json` (the enum is `<EnumName>`), and add the plugin to the target:
///
/// ```swift
/// .executableTarget(
///     name: "App",
///     dependencies: [.product(name: "FeatureFlags", package: "swift-feature-flags")],
///     plugins: [.plugin(name: "FlagsGeneratePlugin", package: "swift-feature-flags")]
/// )
/// ```
@main
struct FlagsGeneratePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "flags")
        return target.sourceFiles.compactMap { file -> Command? in
            let name = file.url.lastPathComponent
            let enumName: String
            if name == "flags.json" {
                enumName = "AppFlag"
            } else if name.hasSuffix(".flags.json"), name.count > ".flags.json".count {
                enumName = String(name.dropLast(".flags.json".count))
            } else {
                return nil
            }
            let output = context.pluginWorkDirectoryURL.appending(path: "Generated-\(enumName)")
            return .buildCommand(
                displayName: "Generating \(enumName).swift from \(name)",
                executable: tool.url,
                arguments: [
                    "generate", "--manifest", file.url.path, "--output", output.path, "--enum-name", enumName,
                ],
                inputFiles: [file.url],
                outputFiles: [output.appending(path: "\(enumName).swift")]
            )
        }
    }
}
