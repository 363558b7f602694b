import Foundation

/// The flag server's fuzz targets: its request decoders, as its routes use them.
enum ServerFuzzTarget: String, CaseIterable {
    /// Admin API request bodies, decoded and written through `FlagAdmin`.
    case admin
    /// The OFREP evaluation request (its context), then evaluated.
    case ofrep
    /// flagd and manifest import documents: dry run, then written through `FlagAdmin`.
    case `import`

    /// The target named by `FUZZ_TARGET`; exits with a usage message when there is none.
    static let selected: ServerFuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = ServerFuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("Set FUZZ_TARGET to one of: \(names) (it is '\(name)').\n".utf8))
            exit(2)
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .admin: blocking { await AdminRequestTarget.run(bytes) }
        case .ofrep: blocking { await OFREPContextTarget.run(bytes) }
        case .import: blocking { await ImportTarget.run(bytes) }
        }
    }
}
