/// Why a value does not fit a flag: the wrong type, a number that is not finite or outside the
/// declared range, a value that does not decode to the flag's Swift type, or one the flag's
/// validation refuses.
///
/// Values of flags marked sensitive print as `<REDACTED>`.
public struct FlagValueRejection: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case wrongType
        case nonFinite
        case outOfRange(FlagValueRange)
        case undecodable(typeName: String)
        case failedValidation
    }

    let kind: Kind
    /// The flag's declared type.
    public let expectedType: FlagValueType
    /// The refused value as text, or `<REDACTED>` for a sensitive flag.
    let shownValue: String

    /// Whether the value had the wrong type (rather than a right-typed value the flag refuses).
    public var isTypeMismatch: Bool { kind == .wrongType }

    /// One clause, such as `expected integer in 1...500, got 900`.
    public var description: String {
        switch kind {
        case .wrongType:
            "expected \(expectedType), got \(shownValue)"
        case .nonFinite:
            "expected a finite \(expectedType), got \(shownValue)"
        case .outOfRange(let range):
            "expected \(expectedType) in \(range), got \(shownValue)"
        case .undecodable(let typeName):
            "expected \(expectedType) that decodes as \(typeName), got \(shownValue)"
        case .failedValidation:
            "the flag's validation refused \(shownValue)"
        }
    }
}
