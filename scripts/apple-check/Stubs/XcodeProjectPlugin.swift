// XcodeProjectPlugin, as the build-tool plugin uses it (Plugins/FlagsGeneratePlugin/
// FlagsGeneratePlugin+Xcode.swift). The module ships only inside Xcode, for the package plugins
// Xcode runs on an Xcode project's targets; it sits on PackagePlugin, here the toolchain's real
// one (`@plugin` in stubs.txt). It exists on the Mac that runs the plugin (stubs.txt: macOS).
//
// Where each declaration comes from:
// - Apple's pages for the module (https://developer.apple.com/documentation/xcodeprojectplugin
//   and below it) are not among the stored documentation the search tool reaches (corpus `docs`).
// - What it does reach is Xcode 14.1's own interface file of the module,
//   XcodeProjectPlugin.swiftmodule/arm64-apple-macos.swiftinterface, as published at
//   https://gist.github.com/ikesyo/f152bf8ee60b1c9bff2e757b01a95fa9 ("the 14.1 interface" below).
//   Only its beginning is readable there: XcodeProject whole, XcodeTarget's first members.
// - The toolchain's PackagePlugin (lib/swift/pm/PluginAPI) declares the record Xcode fills these
//   types from, `XcodeProjectPluginInvocationRecord` ("the record" below), and the URL API that
//   PackageDescription 6.0 brought (`@available(_PackageDescription 6.0)`), which the 14.1
//   interface predates.
// Not modelled (the project does not use them): XcodeCommandPlugin, XcodeProject.directory and
// filePaths (Path-based). Bodies are stubs.
import Foundation
import PackagePlugin

private func stub<T>() -> T { fatalError("Apple check stub") }

// XcodeProject — the 14.1 interface: `public struct XcodeProject` with `id: XcodeProject.ID`
// (`typealias ID = String`), `displayName: String`, `targets: [XcodeTarget]`.
public struct XcodeProject {
    public typealias ID = String
    public let id: XcodeProject.ID
    public let displayName: String
    public let targets: [XcodeTarget]
}

// XcodeTarget — the 14.1 interface: `public struct XcodeTarget` with `id: XcodeTarget.ID`
// (`typealias ID = String`), `displayName: String`, `product: XcodeProduct?`. The excerpt stops
// inside the product's type name ("XcodeProjectPlugin.Xco..."): `XcodeProduct` is read from that,
// and the members after it from the record's XcodeTarget: `inputFiles: FileList` (the files of the
// target, Xcode's counterpart of a package target's `sourceFiles`).
public struct XcodeTarget {
    public typealias ID = String
    public let id: XcodeTarget.ID
    public let displayName: String
    public let product: XcodeProduct?
    public let inputFiles: FileList
}

// XcodeProduct — unclear: past the readable excerpt; its members are the record's
// `XcodeTarget.Product`: `name: String` and `kind` (application, executable, framework, library,
// other(String)).
public struct XcodeProduct {
    public let name: String
    public let kind: Kind
    public enum Kind {
        case application
        case executable
        case framework
        case library
        case other(String)
    }
}

// XcodePluginContext — the 14.1 interface: `xcodeProject: XcodeProject`,
// `pluginWorkDirectory: Path`, `func tool(named name: String) throws -> PluginContext.Tool`.
// Unclear: `pluginWorkDirectoryURL: URL` is not in the 14.1 interface (it predates the URL API);
// it and the deprecation of `pluginWorkDirectory` are declared as PackagePlugin's own
// PluginContext declares them (`@available(_PackageDescription 6.0)`; `deprecated: 6.0, renamed:
// "pluginWorkDirectoryURL"`), assuming Xcode's module gates them on the tools version alike.
public struct XcodePluginContext {
    public let xcodeProject: XcodeProject
    @available(_PackageDescription, deprecated: 6.0, renamed: "pluginWorkDirectoryURL")
    public var pluginWorkDirectory: Path { stub() }
    @available(_PackageDescription 6.0)
    public var pluginWorkDirectoryURL: URL { stub() }
    public func tool(named name: String) throws -> PluginContext.Tool { stub() }
}

// XcodeBuildToolPlugin — `protocol XcodeBuildToolPlugin` with
// `func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command]`.
// Unclear: the readable excerpt stops before it; the requirement is the one every Xcode build-tool
// plugin implements (SwiftPM's plugin templates, swift-package-manager#6446). Whether it refines
// PackagePlugin's `Plugin`, as BuildToolPlugin does, is not known here, so it does not: a type
// conforming to it is also a BuildToolPlugin in this project anyway.
public protocol XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command]
}
