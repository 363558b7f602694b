import Foundation
import Testing

/// The privacy manifests (`PrivacyInfo.xcprivacy`) the library's targets ship: every target an app
/// links declares a reason for each required-reason API its sources use, and every manifest is a
/// property list with the keys Apple's privacy report reads.
struct PrivacyManifestTests {
    @Test func everyTargetAnAppLinksDeclaresTheRequiredReasonAPIsItUses() throws {
        let targets = try PrivacyManifestChecker.appTargets(in: Self.packageRoot)
        #expect(
            targets.contains("FeatureFlags") && targets.contains("FeatureFlagsRemote")
                && targets.contains("FeatureFlagsEvents"))
        for target in targets {
            let folder = Self.packageRoot.appendingPathComponent("Sources/\(target)")
            let problems = try PrivacyManifestChecker.problems(
                target: target, sources: PrivacyManifestChecker.swiftSources(in: folder),
                manifest: try? Data(contentsOf: folder.appendingPathComponent(PrivacyManifestChecker.fileName)))
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The targets whose sources use a required-reason API today, so the scan is known to see them.
    @Test func theScanFindsTheUsesTheManifestsDeclare() throws {
        let expected: [String: Set<String>] = [
            "FeatureFlags": [RequiredReasonCategory.userDefaults.name],
            "FeatureFlagsRemote": [RequiredReasonCategory.fileTimestamp.name],
            "FeatureFlagsEvents": [],
            "FeatureFlagsSharing": [RequiredReasonCategory.fileTimestamp.name],
        ]
        for (target, categories) in expected {
            let sources = try PrivacyManifestChecker.swiftSources(
                in: Self.packageRoot.appendingPathComponent("Sources/\(target)"))
            #expect(Set(PrivacyManifestChecker.uses(in: sources).keys) == categories, "\(target)")
        }
    }

    @Test func everyManifestIsAPropertyListDeclaredAsAResource() throws {
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let manifestText = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var found: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let url = sources.appendingPathComponent("\(target)/\(PrivacyManifestChecker.fileName)")
            guard let data = try? Data(contentsOf: url) else { continue }
            found.append(target)
            let plist = try PropertyListSerialization.propertyList(from: data, format: nil)
            let manifest = try #require(plist as? [String: Any], "\(target): the manifest is not a dictionary")
            #expect(manifest["NSPrivacyTracking"] as? Bool == false, "\(target): NSPrivacyTracking must be false")
            #expect(
                (manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true,
                "\(target): NSPrivacyTrackingDomains must be an empty array")
            #expect(manifest["NSPrivacyCollectedDataTypes"] is [Any], "\(target): NSPrivacyCollectedDataTypes missing")
            #expect(manifest["NSPrivacyAccessedAPITypes"] is [Any], "\(target): NSPrivacyAccessedAPITypes missing")
            #expect(
                PrivacyManifestChecker.declaresResource(target: target, packageManifest: manifestText),
                "\(target): Package.swift does not declare \(PrivacyManifestChecker.fileName) as a resource")
        }
        #expect(found == ["FeatureFlags", "FeatureFlagsEvents", "FeatureFlagsRemote", "FeatureFlagsSharing"])
    }

    /// The events FeatureFlagsEvents delivers: the targeting key as their unit, what the app did,
    /// crashes.
    @Test func theEventsManifestDeclaresWhatEventsCollect() throws {
        let collected = try Self.collectedData(of: "FeatureFlagsEvents")
        let types = collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String }
        #expect(
            Set(types) == [
                "NSPrivacyCollectedDataTypeUserID", "NSPrivacyCollectedDataTypeProductInteraction",
                "NSPrivacyCollectedDataTypeCrashData",
            ])
        #expect(PrivacyManifestChecker.collectedDataProblems(collected).isEmpty)
    }

    /// FeatureFlagsRemote sends the targeting key with OFREP evaluations, and no events: an app
    /// that loads remote values without linking FeatureFlagsEvents declares only that.
    @Test func theRemoteManifestDeclaresOnlyTheTargetingKey() throws {
        let collected = try Self.collectedData(of: "FeatureFlagsRemote")
        #expect(collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String } == ["NSPrivacyCollectedDataTypeUserID"])
        #expect(
            collected.first?["NSPrivacyCollectedDataTypePurposes"] as? [String]
                == ["NSPrivacyCollectedDataTypePurposeAppFunctionality"])
        #expect(PrivacyManifestChecker.collectedDataProblems(collected).isEmpty)
    }

    static func collectedData(of target: String) throws -> [[String: Any]] {
        let url = packageRoot.appendingPathComponent("Sources/\(target)/\(PrivacyManifestChecker.fileName)")
        let manifest = try #require(
            PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        return try #require(manifest["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
    }

    // MARK: - The checker itself

    @Test func anAPIUsedWithoutItsReasonFails() throws {
        let source = PrivacyManifestChecker.Source(
            path: "Uptime.swift",
            text: """
                import Foundation

                let defaults = UserDefaults.standard
                func sessionLength(since start: TimeInterval) -> TimeInterval {
                    ProcessInfo.processInfo.systemUptime - start
                }
                """)
        let manifest = try Self.manifest(declaring: [RequiredReasonCategory.userDefaults.name: ["CA92.1"]])
        let problems = PrivacyManifestChecker.problems(target: "Synthetic", sources: [source], manifest: manifest)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("NSPrivacyAccessedAPICategorySystemBootTime") == true)
        #expect(problems.first?.contains("systemUptime (Uptime.swift:5)") == true)

        let declared = try Self.manifest(declaring: [
            RequiredReasonCategory.userDefaults.name: ["CA92.1"],
            RequiredReasonCategory.systemBootTime.name: ["35F9.1"],
        ])
        #expect(PrivacyManifestChecker.problems(target: "Synthetic", sources: [source], manifest: declared).isEmpty)
    }

    @Test func aTargetUsingAnAPIWithoutAManifestFails() {
        let source = PrivacyManifestChecker.Source(
            path: "Space.swift", text: "let key = URLResourceKey.volumeAvailableCapacityForImportantUsageKey\n")
        let problems = PrivacyManifestChecker.problems(target: "Synthetic", sources: [source], manifest: nil)
        #expect(problems == [
            "Synthetic uses NSPrivacyAccessedAPICategoryDiskSpace (volumeAvailableCapacityForImportantUsageKey (Space.swift:1)) but has no PrivacyInfo.xcprivacy"
        ])
    }

    @Test func aReasonOfAnotherCategoryOrNoReasonFails() throws {
        let source = PrivacyManifestChecker.Source(path: "Store.swift", text: "let d = UserDefaults(suiteName: \"s\")\n")
        let wrong = try Self.manifest(declaring: [RequiredReasonCategory.userDefaults.name: ["C617.1"]])
        #expect(
            PrivacyManifestChecker.problems(target: "T", sources: [source], manifest: wrong) == [
                "T's PrivacyInfo.xcprivacy gives NSPrivacyAccessedAPICategoryUserDefaults the reason C617.1, which is not one of Apple's reasons for it (1C8F.1, AC6B.1, C56D.1, CA92.1)"
            ])
        let none = try Self.manifest(declaring: [RequiredReasonCategory.userDefaults.name: []])
        #expect(
            PrivacyManifestChecker.problems(target: "T", sources: [source], manifest: none) == [
                "T's PrivacyInfo.xcprivacy declares NSPrivacyAccessedAPICategoryUserDefaults without a reason"
            ])
        #expect(
            PrivacyManifestChecker.problems(target: "T", sources: [source], manifest: Data("<plist>".utf8)).first?
                .hasPrefix("T's PrivacyInfo.xcprivacy is not a property list") == true)
    }

    @Test func commentsAndStringsAreNotUsesButInterpolationsAre() {
        let quiet = PrivacyManifestChecker.Source(
            path: "Quiet.swift",
            text: #"""
                // UserDefaults.standard, as the docs say
                /* systemUptime /* nested: stat() */ mach_absolute_time */
                let label = "UserDefaults(\(suite))"
                let raw = #"activeInputModes \(not interpolated)"#
                let block = """
                    statfs "quoted" \(name)
                    """
                """#)
        #expect(PrivacyManifestChecker.uses(in: [quiet]).isEmpty)

        let loud = PrivacyManifestChecker.Source(
            path: "Loud.swift",
            text: ##"""
                let a = "\(UserDefaults.standard.bool(forKey: "k"))"
                let b = #"\#(ProcessInfo.processInfo.systemUptime)"#
                """##)
        let uses = PrivacyManifestChecker.uses(in: [loud])
        #expect(uses[RequiredReasonCategory.userDefaults.name]?.map(\.description) == ["UserDefaults (Loud.swift:1)"])
        #expect(uses[RequiredReasonCategory.systemBootTime.name]?.map(\.description) == ["systemUptime (Loud.swift:2)"])
    }

    @Test func theResourceCheckReadsTheTargetNotTheProduct() {
        let package = """
            products: [.library(name: "Store", targets: ["Store"])],
            targets: [
                .target(
                    name: "Store",
                    dependencies: [.product(name: "Logging", package: "swift-log")],
                    resources: [.copy("PrivacyInfo.xcprivacy")]
                ),
                .target(name: "Plain", dependencies: ["Store"]),
                .testTarget(name: "PlainTests", resources: [.copy("PrivacyInfo.xcprivacy")]),
            ]
            """
        #expect(PrivacyManifestChecker.declaresResource(target: "Store", packageManifest: package))
        #expect(!PrivacyManifestChecker.declaresResource(target: "Plain", packageManifest: package))
        #expect(!PrivacyManifestChecker.declaresResource(target: "Missing", packageManifest: package))
    }

    @Test func collectedDataTypesNeedEveryKeyAndKnownPurposes() {
        let problems = PrivacyManifestChecker.collectedDataProblems([
            [
                "NSPrivacyCollectedDataType": "NSPrivacyCollectedDataTypeUserID",
                "NSPrivacyCollectedDataTypeLinked": true,
                "NSPrivacyCollectedDataTypeTracking": false,
                "NSPrivacyCollectedDataTypePurposes": ["NSPrivacyCollectedDataTypePurposeTelemetry"],
            ],
            ["NSPrivacyCollectedDataType": "NSPrivacyCollectedDataTypeCrashData"],
        ])
        #expect(problems == [
            "NSPrivacyCollectedDataTypeUserID: unknown purpose NSPrivacyCollectedDataTypePurposeTelemetry",
            "NSPrivacyCollectedDataTypeCrashData: NSPrivacyCollectedDataTypeLinked must be a Boolean",
            "NSPrivacyCollectedDataTypeCrashData: NSPrivacyCollectedDataTypeTracking must be a Boolean",
            "NSPrivacyCollectedDataTypeCrashData: NSPrivacyCollectedDataTypePurposes must list at least one purpose",
        ])
    }

    // MARK: - Helpers

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A manifest declaring `reasons` by category, as a property list's bytes.
    static func manifest(declaring reasons: [String: [String]]) throws -> Data {
        let types: [[String: Any]] = reasons.map {
            ["NSPrivacyAccessedAPIType": $0.key, "NSPrivacyAccessedAPITypeReasons": $0.value]
        }
        let manifest: [String: Any] = [
            "NSPrivacyTracking": false, "NSPrivacyTrackingDomains": [String](),
            "NSPrivacyCollectedDataTypes": [[String: Any]](), "NSPrivacyAccessedAPITypes": types,
        ]
        return try PropertyListSerialization.data(fromPropertyList: manifest, format: .xml, options: 0)
    }
}

/// A category of Apple's required-reason APIs: the symbols that fall in it and the reason codes
/// Apple documents for it ("Describing use of required reason API" in Bundle Resources).
struct RequiredReasonCategory: Sendable {
    var name: String
    var symbols: Set<String>
    var reasons: Set<String>

    /// File timestamps. `attributesOfItem` is not on Apple's list by name, but its result carries
    /// `NSFileCreationDate` and `NSFileModificationDate` (it is a `stat`), so it counts here.
    static let fileTimestamp = RequiredReasonCategory(
        name: "NSPrivacyAccessedAPICategoryFileTimestamp",
        symbols: [
            "creationDate", "modificationDate", "fileModificationDate", "contentModificationDate",
            "contentModificationDateKey", "creationDateKey", "NSFileCreationDate", "NSFileModificationDate",
            "NSURLContentModificationDateKey", "NSURLCreationDateKey", "getattrlist", "getattrlistbulk",
            "fgetattrlist", "getattrlistat", "stat", "fstat", "fstatat", "lstat", "attributesOfItem",
        ],
        reasons: ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"])

    static let systemBootTime = RequiredReasonCategory(
        name: "NSPrivacyAccessedAPICategorySystemBootTime",
        symbols: ["systemUptime", "mach_absolute_time"],
        reasons: ["35F9.1", "8FFB.1", "3D61.1"])

    static let diskSpace = RequiredReasonCategory(
        name: "NSPrivacyAccessedAPICategoryDiskSpace",
        symbols: [
            "volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
            "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey",
            "volumeAvailableCapacity", "volumeAvailableCapacityForImportantUsage",
            "volumeAvailableCapacityForOpportunisticUsage", "volumeTotalCapacity", "systemFreeSize", "systemSize",
            "attributesOfFileSystem", "statfs", "statvfs", "fstatfs", "fstatvfs",
        ],
        reasons: ["85F4.1", "E174.1", "7D9E.1", "B728.1"])

    static let activeKeyboards = RequiredReasonCategory(
        name: "NSPrivacyAccessedAPICategoryActiveKeyboards",
        symbols: ["activeInputModes"],
        reasons: ["3EC4.1", "54BD.1"])

    /// `@AppStorage` reads and writes `UserDefaults`, so it counts too.
    static let userDefaults = RequiredReasonCategory(
        name: "NSPrivacyAccessedAPICategoryUserDefaults",
        symbols: ["UserDefaults", "NSUserDefaults", "AppStorage"],
        reasons: ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"])

    static let all = [fileTimestamp, systemBootTime, diskSpace, activeKeyboards, userDefaults]
}

/// Compares a target's Swift sources with its privacy manifest.
enum PrivacyManifestChecker {
    static let fileName = "PrivacyInfo.xcprivacy"

    /// Folders of `Sources/` that no app links: the command-line tool, the tooling only it uses,
    /// and the helpers of users' own tests (linked into test bundles, never shipped).
    static let notLinkedByApps: Set<String> = ["flags", "FlagTooling", "FeatureFlagsTesting"]

    struct Source {
        var path: String
        var text: String
    }

    struct Use: CustomStringConvertible {
        var symbol: String
        var path: String
        var line: Int
        var description: String { "\(symbol) (\(path):\(line))" }
    }

    /// Every target in `Sources/` but those in ``notLinkedByApps``, so a new target is checked
    /// without being listed.
    static func appTargets(in packageRoot: URL) throws -> [String] {
        let sources = packageRoot.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path)
            .filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(
                    atPath: sources.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && isDirectory.boolValue && !notLinkedByApps.contains(name)
            }
            .sorted()
    }

    static func swiftSources(in folder: URL) throws -> [Source] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var sources: [Source] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            sources.append(Source(path: "\(folder.lastPathComponent)/\(relative)", text: text))
        }
        return sources.sorted { $0.path < $1.path }
    }

    /// The required-reason APIs `sources` use, by category name.
    static func uses(in sources: [Source]) -> [String: [Use]] {
        var uses: [String: [Use]] = [:]
        for source in sources {
            for (identifier, line) in SwiftCodeIdentifiers.identifiers(in: source.text) {
                for category in RequiredReasonCategory.all where category.symbols.contains(identifier) {
                    uses[category.name, default: []].append(Use(symbol: identifier, path: source.path, line: line))
                }
            }
        }
        return uses
    }

    /// What is wrong with `target`'s manifest for `sources`; empty when nothing is.
    static func problems(target: String, sources: [Source], manifest: Data?) -> [String] {
        let uses = uses(in: sources)
        guard let manifest else {
            return uses.keys.sorted().map { category in
                "\(target) uses \(category) (\(list(uses[category]!))) but has no \(fileName)"
            }
        }
        let declared: [String: [String]]
        do {
            declared = try declaredReasons(in: manifest)
        } catch {
            return ["\(target)'s \(fileName) is not a property list with NSPrivacyAccessedAPITypes: \(error)"]
        }
        var problems: [String] = []
        for category in uses.keys.sorted() where declared[category] == nil {
            problems.append("\(target) uses \(category) (\(list(uses[category]!))) but its \(fileName) gives no reason for it")
        }
        for (name, reasons) in declared.sorted(by: { $0.key < $1.key }) {
            guard let category = RequiredReasonCategory.all.first(where: { $0.name == name }) else {
                problems.append("\(target)'s \(fileName) declares an unknown category \(name)")
                continue
            }
            if reasons.isEmpty {
                problems.append("\(target)'s \(fileName) declares \(name) without a reason")
            }
            for reason in reasons where !category.reasons.contains(reason) {
                problems.append(
                    "\(target)'s \(fileName) gives \(name) the reason \(reason), which is not one of Apple's reasons for it (\(category.reasons.sorted().joined(separator: ", ")))"
                )
            }
        }
        return problems
    }

    /// The manifest's accessed API categories and their reasons.
    static func declaredReasons(in manifest: Data) throws -> [String: [String]] {
        let plist = try PropertyListSerialization.propertyList(from: manifest, format: nil)
        guard let types = (plist as? [String: Any])?["NSPrivacyAccessedAPITypes"] as? [[String: Any]] else {
            throw ManifestShapeError(detail: "NSPrivacyAccessedAPITypes is missing or not an array of dictionaries")
        }
        var declared: [String: [String]] = [:]
        for entry in types {
            guard let name = entry["NSPrivacyAccessedAPIType"] as? String else {
                throw ManifestShapeError(detail: "an NSPrivacyAccessedAPITypes entry has no NSPrivacyAccessedAPIType")
            }
            declared[name, default: []] += entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
        }
        return declared
    }

    /// What is wrong with `NSPrivacyCollectedDataTypes` entries; empty when nothing is.
    static func collectedDataProblems(_ entries: [[String: Any]]) -> [String] {
        let purposes: Set<String> = [
            "ThirdPartyAdvertising", "DeveloperAdvertising", "Analytics", "ProductPersonalization",
            "AppFunctionality", "Other",
        ]
        var problems: [String] = []
        for entry in entries {
            let type = entry["NSPrivacyCollectedDataType"] as? String ?? "an entry without NSPrivacyCollectedDataType"
            for key in ["NSPrivacyCollectedDataTypeLinked", "NSPrivacyCollectedDataTypeTracking"] where !(entry[key] is Bool) {
                problems.append("\(type): \(key) must be a Boolean")
            }
            let listed = entry["NSPrivacyCollectedDataTypePurposes"] as? [String] ?? []
            if listed.isEmpty {
                problems.append("\(type): NSPrivacyCollectedDataTypePurposes must list at least one purpose")
            }
            let prefix = "NSPrivacyCollectedDataTypePurpose"
            for purpose in listed where !(purpose.hasPrefix(prefix) && purposes.contains(String(purpose.dropFirst(prefix.count)))) {
                problems.append("\(type): unknown purpose \(purpose)")
            }
        }
        return problems
    }

    /// Whether the `.target(name: target, …)` declaration in the package manifest lists the
    /// privacy manifest among its resources.
    static func declaresResource(target: String, packageManifest: String) -> Bool {
        var searched = packageManifest[...]
        while let name = searched.range(of: "name: \"\(target)\",") {
            searched = packageManifest[name.upperBound...]
            // The target's declaration, not the product of the same name.
            guard packageManifest[..<name.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(".target(")
            else { continue }
            // Up to the next target's declaration.
            let end = [".target(", ".testTarget(", ".executableTarget(", ".plugin(", ".macro(", ".binaryTarget("]
                .compactMap { searched.range(of: $0)?.lowerBound }.min() ?? searched.endIndex
            let declaration = searched[..<end]
            return declaration.contains(".copy(\"\(fileName)\")") || declaration.contains(".process(\"\(fileName)\")")
        }
        return false
    }

    private static func list(_ uses: [Use]) -> String {
        uses.prefix(3).map(\.description).joined(separator: ", ") + (uses.count > 3 ? ", …" : "")
    }

    struct ManifestShapeError: Error, CustomStringConvertible {
        var detail: String
        var description: String { detail }
    }
}

/// The identifiers of Swift code with their line numbers, leaving out comments and the text of
/// string literals (but not the code interpolated into them). A scanner, not a parser: enough to
/// tell `UserDefaults.standard` in code from the same words in a doc comment or a log message.
enum SwiftCodeIdentifiers {
    private enum Mode {
        /// Code; `parentheses` counts those open in an interpolation, to find its end.
        case code(parentheses: Int)
        case string(hashes: Int, multiline: Bool)
    }

    static func identifiers(in text: String) -> [(String, Int)] {
        let bytes = Array(text.utf8)
        var found: [(String, Int)] = []
        var modes: [Mode] = [.code(parentheses: 0)]
        var line = 1
        var index = 0

        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func matches(_ literal: String, from offset: Int = 0) -> Bool {
            let pattern = Array(literal.utf8)
            guard index + offset + pattern.count <= bytes.count else { return false }
            return Array(bytes[(index + offset)..<(index + offset + pattern.count)]) == pattern
        }
        func hashes(from offset: Int) -> Int {
            var count = 0
            while at(offset + count) == UInt8(ascii: "#") { count += 1 }
            return count
        }
        func isIdentifierStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_") || byte >= 0x80
        }
        func isIdentifierByte(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39) }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            switch modes[modes.count - 1] {
            case .code(let parentheses):
                if matches("//") {
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                    continue
                }
                if matches("/*") {
                    var depth = 0
                    repeat {
                        if matches("/*") {
                            depth += 1
                            index += 2
                        } else if matches("*/") {
                            depth -= 1
                            index += 2
                        } else {
                            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                            index += 1
                        }
                    } while depth > 0 && index < bytes.count
                    continue
                }
                let count = hashes(from: 0)
                if at(count) == UInt8(ascii: "\"") {
                    let multiline = matches("\"\"\"", from: count)
                    modes.append(.string(hashes: count, multiline: multiline))
                    index += count + (multiline ? 3 : 1)
                    continue
                }
                if isIdentifierStart(byte) {
                    let start = index
                    while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
                    found.append((String(decoding: bytes[start..<index], as: UTF8.self), line))
                    continue
                }
                if byte >= 0x30 && byte <= 0x39 {
                    while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
                    continue
                }
                if byte == UInt8(ascii: "(") {
                    modes[modes.count - 1] = .code(parentheses: parentheses + 1)
                } else if byte == UInt8(ascii: ")") {
                    if parentheses == 0, modes.count > 1 {
                        modes.removeLast()
                    } else {
                        modes[modes.count - 1] = .code(parentheses: max(0, parentheses - 1))
                    }
                }
                index += 1
            case .string(let hashCount, let multiline):
                if byte == UInt8(ascii: "\\"), hashes(from: 1) == hashCount {
                    if at(1 + hashCount) == UInt8(ascii: "(") {
                        modes.append(.code(parentheses: 0))
                        index += 2 + hashCount
                    } else {
                        // An escape: skip the backslash, its hashes and the escaped character.
                        if at(1 + hashCount) == UInt8(ascii: "\n") { line += 1 }
                        index += 2 + hashCount
                    }
                    continue
                }
                let quotes = multiline ? "\"\"\"" : "\""
                if matches(quotes), hashes(from: quotes.utf8.count) >= hashCount {
                    modes.removeLast()
                    index += quotes.utf8.count + hashCount
                    continue
                }
                index += 1
            }
        }
        return found
    }
}
