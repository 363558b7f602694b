import FeatureFlags
import Foundation

/// Reads the flags an app published with ``SharedFlagPublisher``: in an app extension, a widget
/// or a watch app that shares the app's flag enum and an App Group.
///
/// ```swift
/// let reader = SharedFlagReader<AppFlag>(directory: containerURL)
/// let flags = reader.read()   // no network; a file read and a parse
/// if flags.isEnabled(.chatViewRedesign) { … }
/// ```
///
/// On Apple platforms, `SharedFlagReader(appGroup:)` finds the App Group container.
///
/// Reading never throws and never traps: a missing file, a file in a newer format (an app
/// updated before its extension) or an unreadable one gives code defaults, with
/// ``SharedFlagSnapshot/status`` saying which. Each published value goes through the flag's own
/// declaration (type, range, validation) like any layer in the app; a value it refuses reads as
/// the code default and is listed in ``SharedFlagSnapshot/refusedKeys``.
public struct SharedFlagReader<Key: FeatureFlagKey>: Sendable {
    /// The file read.
    public let file: SharedFlagsFile
    private let registry: FlagRegistry

    /// A reader of `fileName` in `directory`.
    ///
    /// Traps, like ``FeatureFlagManager``, when the enum's declarations are inconsistent.
    public init(directory: URL, fileName: String = SharedFlagsFile.defaultFileName) {
        self.init(file: SharedFlagsFile(directory: directory, fileName: fileName))
    }

    /// A reader of `file`.
    public init(file: SharedFlagsFile) {
        self.file = file
        do {
            self.registry = try FlagRegistry(Key.self)
        } catch {
            preconditionFailure("Invalid feature flag declarations in \(Key.self): \(error)")
        }
    }

    /// A reader over a registry built beforehand (traps when it is not `Key`'s).
    public init(file: SharedFlagsFile, registry: FlagRegistry) {
        precondition(
            registry.definitions.map(\.key) == Key.allCases.map(\.rawValue) + Key.typedFlags.map(\.definition.key),
            "The registry given to SharedFlagReader<\(Key.self)> is not the registry of \(Key.self); build it with FlagRegistry(\(Key.self).self).")
        self.file = file
        self.registry = registry
    }

    /// The current publication, or code defaults with the reason.
    public func read() -> SharedFlagSnapshot<Key> {
        switch file.read() {
        case nil:
            return SharedFlagSnapshot(status: .missing, registry: registry)
        case .failure(.newerFormat(let found)):
            return SharedFlagSnapshot(
                status: .newerFormat(found: found, supported: SharedFlagsFile.currentFormat), registry: registry)
        case .failure(.unreadable(let reason)):
            return SharedFlagSnapshot(status: .unreadable(reason), registry: registry)
        case .success(let contents):
            return snapshot(of: contents)
        }
    }

    /// The snapshot of a publication read from the file's bytes (for tests and for readers that
    /// get the bytes another way).
    public func read(data: Data) -> SharedFlagSnapshot<Key> {
        switch SharedFlagsFile.decode(data) {
        case .failure(.newerFormat(let found)):
            SharedFlagSnapshot(
                status: .newerFormat(found: found, supported: SharedFlagsFile.currentFormat), registry: registry)
        case .failure(.unreadable(let reason)):
            SharedFlagSnapshot(status: .unreadable(reason), registry: registry)
        case .success(let contents):
            snapshot(of: contents)
        }
    }

    private func snapshot(of contents: SharedFlagsFile.Contents) -> SharedFlagSnapshot<Key> {
        var entries = [SharedFlagSnapshot<Key>.Entry?](repeating: nil, count: registry.count)
        var refused: [String] = []
        for (key, published) in contents.flags {
            guard let index = registry.index(ofKey: key) else { continue }
            let definition = registry.definitions[index]
            switch definition.accepting(published.value) {
            case .success(let value):
                entries[index] = .init(
                    value: value, layer: published.layer, variant: published.variant,
                    isSensitive: definition.isSensitive)
            case .failure:
                refused.append(key)
            }
        }
        return SharedFlagSnapshot(
            status: .published, registry: registry, revision: contents.revision, publishedAt: contents.publishedAt,
            buildConfiguration: contents.buildConfiguration, entries: entries,
            withheldKeys: contents.withheld.filter { registry.index(ofKey: $0) != nil }.sorted(),
            refusedKeys: refused.sorted())
    }
}
