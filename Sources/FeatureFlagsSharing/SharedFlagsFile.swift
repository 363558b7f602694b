import FeatureFlags
import Foundation

/// The file an app publishes its resolved flags to, in a directory its extensions can read (an
/// App Group container on Apple platforms; any directory elsewhere).
///
/// One JSON object, written atomically (a temporary file beside it, renamed over it), so a
/// reader sees the previous publication or the next, never half of one:
///
/// ```json
/// {"format":1,"revision":4,"publishedAt":1795000000.5,"buildConfiguration":"debug",
///  "flags":{"dark_mode":{"value":true,"layer":"override"},
///           "checkout":{"value":"b","layer":"remote","variant":"b"}},
///  "withheld":["api_token"]}
/// ```
///
/// `format` is the layout's version: a reader that meets a newer one, or a file it cannot read,
/// says so and falls back to code defaults. `revision` grows by one with every publication whose
/// flags differ from the previous one. `withheld` lists the sensitive flags the app chose not to
/// share (see ``SharedFlagPublisher``).
public struct SharedFlagsFile: Sendable, Hashable {
    /// The layout this build writes, and the newest it reads.
    public static let currentFormat = 1
    /// The largest file a reader accepts: about 10 times what 10,000 flags need.
    public static let maximumSize = 8 << 20
    /// The file name used in a directory.
    public static let defaultFileName = "feature-flags.shared.json"

    /// The file's location.
    public let url: URL

    /// The shared file at `url`.
    public init(url: URL) {
        self.url = url
    }

    /// The file `fileName` in `directory`, such as an App Group container.
    public init(directory: URL, fileName: String = SharedFlagsFile.defaultFileName) {
        self.url = directory.appendingPathComponent(fileName)
    }

    /// What one publication holds.
    struct Contents: Sendable, Hashable {
        var revision: UInt64
        var publishedAt: Date
        var buildConfiguration: BuildConfiguration?
        /// By key.
        var flags: [String: Entry]
        var withheld: [String]
    }

    /// One flag in the file.
    struct Entry: Sendable, Hashable {
        var value: FlagValue
        var layer: FlagLayer
        var variant: String?
    }

    /// Why a file was not used.
    enum Problem: Error, Sendable, Hashable {
        case newerFormat(Int)
        case unreadable(String)
    }

    // MARK: - Writing

    /// The file's bytes for `contents`: compact JSON, keys sorted.
    static func encode(_ contents: Contents) -> Data {
        var flags: [String: FlagValue] = [:]
        flags.reserveCapacity(contents.flags.count)
        for (key, entry) in contents.flags {
            var members: [String: FlagValue] = ["value": entry.value, "layer": .string(entry.layer.name)]
            if let variant = entry.variant { members["variant"] = .string(variant) }
            flags[key] = .object(members)
        }
        var object: [String: FlagValue] = [
            "format": .int(currentFormat),
            // A string: a JSON integer is read as `Int`, 32 bits on Apple Watch.
            "revision": .string(String(contents.revision)),
            "publishedAt": .double(contents.publishedAt.timeIntervalSince1970),
            "flags": .object(flags),
            "withheld": .array(contents.withheld.sorted().map(FlagValue.string)),
        ]
        if let configuration = contents.buildConfiguration {
            object["buildConfiguration"] = .string(configuration.rawValue)
        }
        return Data((FlagValue.object(object).jsonString + "\n").utf8)
    }

    /// Writes `contents` atomically, creating the directory if needed. On iOS, tvOS, watchOS and
    /// visionOS the file is protected `completeUntilFirstUserAuthentication`, so a widget can read
    /// it while the device is locked after the first unlock.
    func write(_ contents: Contents) throws {
        let data = Self.encode(contents)
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try AtomicFile.write(data, to: url, options: [.completeFileProtectionUntilFirstUserAuthentication])
        #else
        try AtomicFile.write(data, to: url)
        #endif
    }

    // MARK: - Reading

    /// The publication in the file; `nil` when there is no file.
    func read() -> Result<Contents, Problem>? {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= Self.maximumSize else {
                return .failure(.unreadable("it has \(size) bytes, more than the \(Self.maximumSize) a reader accepts"))
            }
            data = try Data(contentsOf: url)
        } catch {
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return .failure(.unreadable("it could not be read (\(error))"))
        }
        return Self.decode(data)
    }

    /// Reads a publication from the file's bytes.
    static func decode(_ data: Data) -> Result<Contents, Problem> {
        guard data.count <= maximumSize else {
            return .failure(.unreadable("it has \(data.count) bytes, more than the \(maximumSize) a reader accepts"))
        }
        let members: [String: FlagValue]
        do {
            members = try FlagValue.objectMembers(fromJSON: data)
        } catch {
            return .failure(.unreadable(data.isEmpty ? "the file is empty" : "it is not a JSON object"))
        }
        guard case .int(let format)? = members["format"] else {
            return .failure(.unreadable("it has no integer 'format'"))
        }
        guard format <= currentFormat else { return .failure(.newerFormat(format)) }
        guard format == currentFormat else {
            return .failure(.unreadable("its 'format' \(format) is not one any build wrote"))
        }
        guard case .string(let revisionText)? = members["revision"], let revision = UInt64(revisionText) else {
            return .failure(.unreadable("its 'revision' is not a decimal string"))
        }
        guard let publishedAt = members["publishedAt"]?.doubleValue, publishedAt.isFinite else {
            return .failure(.unreadable("its 'publishedAt' is not a number"))
        }
        var configuration: BuildConfiguration?
        if let value = members["buildConfiguration"] {
            guard case .string(let name) = value, let known = BuildConfiguration(rawValue: name) else {
                return .failure(.unreadable("its 'buildConfiguration' is not one of \(BuildConfiguration.allCases)"))
            }
            configuration = known
        }
        guard case .object(let flagMembers)? = members["flags"] else {
            return .failure(.unreadable("its 'flags' is not an object"))
        }
        var flags: [String: Entry] = [:]
        flags.reserveCapacity(flagMembers.count)
        for (key, member) in flagMembers {
            guard case .object(let fields) = member, let value = fields["value"],
                case .string(let layerName)? = fields["layer"],
                let layer = FlagLayer.allCases.first(where: { $0.name == layerName })
            else {
                return .failure(.unreadable("its flag '\(key)' is not an object with a 'value' and a known 'layer'"))
            }
            var variant: String?
            if let field = fields["variant"] {
                guard case .string(let name) = field else {
                    return .failure(.unreadable("its flag '\(key)' has a 'variant' that is not a string"))
                }
                variant = name
            }
            flags[key] = Entry(value: value, layer: layer, variant: variant)
        }
        var withheld: [String] = []
        if let value = members["withheld"] {
            guard case .array(let elements) = value else {
                return .failure(.unreadable("its 'withheld' is not an array of keys"))
            }
            for element in elements {
                guard case .string(let key) = element else {
                    return .failure(.unreadable("its 'withheld' is not an array of keys"))
                }
                withheld.append(key)
            }
        }
        return .success(
            Contents(
                revision: revision, publishedAt: Date(timeIntervalSince1970: publishedAt),
                buildConfiguration: configuration, flags: flags, withheld: withheld))
    }
}
