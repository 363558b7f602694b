extension FlagDefinition {
    /// The value as this flag uses it, or why the flag refuses it.
    ///
    /// A value is accepted when it has the flag's type (see ``FlagValue/normalized(to:)``), holds
    /// no infinite or NaN number, lies in the declared ``range``, decodes to the Swift type of a
    /// ``TypedFlag`` and passes its `validate` closure. Every layer above the code default goes
    /// through this check (remote values, user preferences, overrides, launch arguments), and the
    /// registry applies it to the defaults.
    ///
    /// ```swift
    /// switch definition.accepting(.int(900)) {
    /// case .success(let value): use(value)
    /// case .failure(let rejection): print(rejection)   // expected integer in 1...500, got 900
    /// }
    /// ```
    public func accepting(_ value: FlagValue) -> Result<FlagValue, FlagValueRejection> {
        Self.accepting(value, type: type, range: range, check: check, isSensitive: isSensitive)
    }

    /// ``accepting(_:)`` from the fields it reads. Loops over many definitions in an array call
    /// this with fields read in place: a method called on an array element (or on a borrowed
    /// one, since the check may run a closure) works on a copy of the whole definition, every
    /// reference in it retained and released.
    static func accepting(
        _ value: FlagValue, type: FlagValueType, range: FlagValueRange?, check: FlagValueCheck?, isSensitive: Bool
    ) -> Result<FlagValue, FlagValueRejection> {
        let kind: FlagValueRejection.Kind
        if let normalized = value.normalized(to: type) {
            if normalized.containsNonFiniteNumber {
                kind = .nonFinite
            } else if let range, !range.contains(normalized) {
                kind = .outOfRange(range)
            } else if let problem = check?.problem(normalized) {
                kind = problem
            } else {
                return .success(normalized)
            }
        } else {
            kind = .wrongType
        }
        return .failure(
            FlagValueRejection(kind: kind, expectedType: type, shownValue: isSensitive ? "<REDACTED>" : value.jsonString))
    }

    /// `value` as text for messages, or `<REDACTED>` when the flag is sensitive.
    func shown(_ value: FlagValue) -> String {
        isSensitive ? "<REDACTED>" : value.jsonString
    }
}

extension FlagValue {
    /// Whether the value is, or contains, an infinite or NaN double, which JSON cannot carry.
    var containsNonFiniteNumber: Bool {
        switch self {
        case .double(let value): !value.isFinite
        case .array(let elements): elements.contains { $0.containsNonFiniteNumber }
        case .object(let members): members.values.contains { $0.containsNonFiniteNumber }
        case .bool, .int, .string, .null: false
        }
    }
}
