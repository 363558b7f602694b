import FeatureFlags
import FlagManifest
import FlagServerClient
import SwiftSyntax

/// Evaluates the literal arguments of `FlagMetadata`, `TypedFlag` and `FlagDefinition` calls
/// into definitions, mirroring what the initializers do at run time.
struct LiteralEvaluator {
    let index: DeclarationIndex

    private func failure(_ location: String, _ subject: String, _ message: String) -> ToolingError {
        ToolingError(.invalidInput, "\(location): \(subject): \(message)")
    }

    /// The arguments by label (`_` for the unlabeled ones, in order).
    private func arguments(_ call: FunctionCallExprSyntax) -> [(label: String, expression: ExprSyntax)] {
        call.arguments.map { ($0.label?.text ?? "_", $0.expression) }
    }

    private func checkCallee(_ call: FunctionCallExprSyntax, _ names: [String], location: String, subject: String)
        throws(ToolingError)
    {
        var callee = call.calledExpression.trimmedDescription
        if let generic = callee.firstIndex(of: "<") { callee = String(callee[..<generic]) }
        if callee.hasSuffix(".init") { callee = String(callee.dropLast(".init".count)) }
        guard callee.isEmpty || names.contains(callee) || names.contains(where: { callee.hasSuffix(".\($0)") }) else {
            throw failure(location, subject, "expected \(names.joined(separator: " or "))(...), found \(callee)(...).")
        }
    }

    // MARK: - Declarations

    /// A `FlagMetadata(...)` call of the enum case with raw value `key`.
    func flagMetadata(
        _ call: FunctionCallExprSyntax, key: String, cases: [String: String], location: String
    ) throws(ToolingError) -> FlagDefinition {
        let subject = "'\(key)'"
        try checkCallee(call, ["FlagMetadata"], location: location, subject: subject)
        var definition = FlagDefinition(key: key, type: .boolean, default: .bool(false))
        var enabledIn: [BuildConfiguration]?
        for (label, expression) in arguments(call) {
            let field = "\(subject) \(label == "_" ? "display name" : label)"
            switch label {
            case "_": definition.displayName = try string(expression, location: location, subject: field)
            case "description": definition.description = try string(expression, location: location, subject: field)
            case "phase": definition.phase = try optionalInt(expression, location: location, subject: field)
            case "owner": definition.owner = try optionalString(expression, location: location, subject: field)
            case "default": definition.defaultValue = .bool(try bool(expression, location: location, subject: field))
            case "removalTarget": definition.removalTarget = try optionalString(expression, location: location, subject: field)
            case "enabledIn":
                if expression.is(NilLiteralExprSyntax.self) { break }
                enabledIn = try elements(expression, location: location, subject: field).map { (element) throws(ToolingError) in
                    try configuration(element, location: location, subject: field)
                }
            case "requires", "conflicts":
                let keys = try elements(expression, location: location, subject: field).map { (element) throws(ToolingError) in
                    guard let name = caseName(element), let key = cases[name] else {
                        throw failure(location, field, "expected a case of the flag enum such as .chatViewRedesign, found \(element.trimmedDescription).")
                    }
                    return key
                }
                if label == "requires" { definition.requires = keys } else { definition.conflicts = keys }
            case "userTogglable": definition.isUserTogglable = try bool(expression, location: location, subject: field)
            case "checking": definition.checking = try checking(expression, location: location, subject: field)
            default:
                throw failure(location, subject, "unknown FlagMetadata argument '\(label)'.")
            }
        }
        // As `FeatureFlagKey.definition` does.
        if let enabledIn {
            definition.followsPhasePolicy = false
            definition.buildDefaults = Dictionary(
                uniqueKeysWithValues: BuildConfiguration.allCases.map { ($0, .bool(enabledIn.contains($0))) })
        }
        return definition
    }

    /// A `TypedFlag<Type>(...)` or `FlagDefinition(...)` constant named `name`.
    func typedFlag(_ call: FunctionCallExprSyntax, name: String, location: String) throws(ToolingError) -> FlagDefinition {
        let callee = call.calledExpression.trimmedDescription
        if callee == "FlagDefinition" || callee.hasSuffix(".FlagDefinition") {
            return try flagDefinition(call, name: name, location: location)
        }
        guard let generic = call.calledExpression.as(GenericSpecializationExprSyntax.self),
            generic.expression.trimmedDescription.hasSuffix("TypedFlag"),
            let argument = generic.genericArgumentClause.arguments.first
        else {
            throw failure(location, "'\(name)'", "expected TypedFlag<Type>(...) or FlagDefinition(...), found \(callee)(...).")
        }
        let swiftType = argument.argument.trimmedDescription
        let type = valueType(swiftType)
        let all = arguments(call)
        guard let keyArgument = all.first(where: { $0.label == "_" }) else {
            throw failure(location, "'\(name)'", "missing the key (the first argument).")
        }
        let key = try string(keyArgument.expression, location: location, subject: "'\(name)' key")
        let subject = "'\(key)'"
        var definition = FlagDefinition(
            key: key, type: type, default: .null, followsPhasePolicy: false, checking: .userOnly)
        for (label, expression) in all.dropFirst() {
            let field = "\(subject) \(label)"
            switch label {
            case "default": definition.defaultValue = try value(expression, swiftType: swiftType, location: location, subject: field)
            case "displayName", "description", "phase", "owner", "removalTarget":
                try describe(&definition, label: label, expression, location: location, subject: field)
            case "buildDefaults":
                definition.buildDefaults = try buildDefaults(expression, swiftType: swiftType, location: location, subject: field)
            case "userTogglable": definition.isUserTogglable = try bool(expression, location: location, subject: field)
            case "sensitive": definition.isSensitive = try bool(expression, location: location, subject: field)
            case "range":
                guard type == .integer || type == .double else {
                    throw failure(location, field, "only TypedFlag<Int> and TypedFlag<Double> take a range; this flag is \(swiftType).")
                }
                definition.range = try closedRange(expression, type: type, location: location, subject: field)
            case "validate":
                // Code, not a declaration: it runs in the app and has no place in the manifest
                // (the in-process export leaves it out too).
                break
            default: throw failure(location, subject, "unknown TypedFlag argument '\(label)'.")
            }
        }
        // A trailing closure is the `validate` closure (the only closure TypedFlag takes), which
        // `arguments(_:)` leaves out like the labelled one.
        guard definition.defaultValue != .null else { throw failure(location, subject, "missing the default: argument.") }
        return definition
    }

    /// The descriptive arguments `TypedFlag` and `FlagDefinition` share.
    private func describe(
        _ definition: inout FlagDefinition, label: String, _ expression: ExprSyntax, location: String, subject field: String
    ) throws(ToolingError) {
        switch label {
        case "displayName":
            if let text = try optionalString(expression, location: location, subject: field) { definition.displayName = text }
        case "description": definition.description = try string(expression, location: location, subject: field)
        case "phase": definition.phase = try optionalInt(expression, location: location, subject: field)
        case "owner": definition.owner = try optionalString(expression, location: location, subject: field)
        case "removalTarget": definition.removalTarget = try optionalString(expression, location: location, subject: field)
        default: throw failure(location, field, "is not a descriptive argument.")
        }
    }

    private func flagDefinition(_ call: FunctionCallExprSyntax, name: String, location: String) throws(ToolingError) -> FlagDefinition {
        let all = arguments(call)
        guard let keyExpression = all.first(where: { $0.label == "key" })?.expression,
            let typeExpression = all.first(where: { $0.label == "type" })?.expression
        else { throw failure(location, "'\(name)'", "FlagDefinition needs key: and type: arguments.") }
        let key = try string(keyExpression, location: location, subject: "'\(name)' key")
        let subject = "'\(key)'"
        guard let typeName = caseName(typeExpression), let type = FlagValueType(rawValue: typeName) else {
            throw failure(location, "\(subject) type", "expected .boolean, .integer, .double, .string or .object.")
        }
        var definition = FlagDefinition(key: key, type: type, default: .null)
        for (label, expression) in all {
            let field = "\(subject) \(label)"
            switch label {
            case "key", "type": break
            case "default": definition.defaultValue = try value(expression, swiftType: nil, location: location, subject: field)
            case "displayName", "description", "phase", "owner", "removalTarget":
                try describe(&definition, label: label, expression, location: location, subject: field)
            case "buildDefaults":
                definition.buildDefaults = try buildDefaults(expression, swiftType: nil, location: location, subject: field)
            case "followsPhasePolicy": definition.followsPhasePolicy = try bool(expression, location: location, subject: field)
            case "requires", "conflicts":
                let keys = try elements(expression, location: location, subject: field).map { (element) throws(ToolingError) in
                    try string(element, location: location, subject: field)
                }
                if label == "requires" { definition.requires = keys } else { definition.conflicts = keys }
            case "isUserTogglable": definition.isUserTogglable = try bool(expression, location: location, subject: field)
            case "checking": definition.checking = try checking(expression, location: location, subject: field)
            case "isSensitive": definition.isSensitive = try bool(expression, location: location, subject: field)
            case "range":
                if expression.is(NilLiteralExprSyntax.self) { break }
                definition.range = try flagValueRange(expression, location: location, subject: field)
            default: throw failure(location, subject, "unknown FlagDefinition argument '\(label)'.")
            }
        }
        guard definition.defaultValue != .null else { throw failure(location, subject, "missing the default: argument.") }
        return definition
    }

    // MARK: - Values

    /// The flag value type of a `TypedFlag`'s Swift type.
    private func valueType(_ swiftType: String) -> FlagValueType {
        switch swiftType {
        case "Bool": .boolean
        case "Int": .integer
        case "Double": .double
        case "String": .string
        default: index.stringEnums[swiftType] != nil ? .string : .object
        }
    }

    /// A value of a `TypedFlag<swiftType>`, as its `flagValue`; without a Swift type, a
    /// `FlagDefinition`'s `FlagValue`.
    private func value(_ expression: ExprSyntax, swiftType: String?, location: String, subject: String) throws(ToolingError) -> FlagValue {
        guard let swiftType else { return try flagValueExpression(expression, location: location, subject: subject) }
        if let raws = index.stringEnums[swiftType] {
            guard let name = caseName(expression), let raw = raws[name] else {
                throw failure(location, subject, "expected a case of \(swiftType) such as .\(raws.keys.sorted().first ?? "value"), found \(expression.trimmedDescription).")
            }
            return .string(raw)
        }
        let value = try flagValue(expression, location: location, subject: subject)
        if swiftType == "Double", case .int(let number) = value { return .double(Double(number)) }
        return value
    }

    /// A `FlagValue` as Swift spells it: its cases (`.int(3)`, `.string("a")`, `.array([...])`,
    /// `FlagValue.null`…) or a literal (`FlagValue` is expressible by literals).
    private func flagValueExpression(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> FlagValue {
        if let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "null",
            member.base == nil || member.base?.trimmedDescription == "FlagValue"
        {
            return .null
        }
        guard let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.base == nil || member.base?.trimmedDescription == "FlagValue",
            call.arguments.count == 1, let argument = call.arguments.first, argument.label == nil
        else {
            if let array = expression.as(ArrayExprSyntax.self) {
                var values: [FlagValue] = []
                for element in array.elements {
                    values.append(try flagValueExpression(element.expression, location: location, subject: subject))
                }
                return .array(values)
            }
            if let dictionary = expression.as(DictionaryExprSyntax.self) {
                var members: [String: FlagValue] = [:]
                if case .elements(let elements) = dictionary.content {
                    for element in elements {
                        members[try string(element.key, location: location, subject: subject)] =
                            try flagValueExpression(element.value, location: location, subject: subject)
                    }
                }
                return .object(members)
            }
            return try flagValue(expression, location: location, subject: subject)
        }
        let inner = argument.expression
        let value: FlagValue?
        switch member.declName.baseName.text {
        case "bool": value = .bool(try bool(inner, location: location, subject: subject))
        case "string": value = .string(try string(inner, location: location, subject: subject))
        case "int":
            if case .int(let number) = try flagValue(inner, location: location, subject: subject) { value = .int(number) } else { value = nil }
        case "double": value = try flagValue(inner, location: location, subject: subject).doubleValue.map(FlagValue.double)
        case "array", "object":
            let contents = try flagValueExpression(inner, location: location, subject: subject)
            switch (member.declName.baseName.text, contents) {
            case ("array", .array), ("object", .object): value = contents
            default: value = nil
            }
        default: value = nil
        }
        guard let value else {
            throw failure(
                location, subject,
                "expected a FlagValue such as .int(3), .double(1.5), .string(\"a\"), .bool(true), .array([...]) or .object([...]), found \(expression.trimmedDescription).")
        }
        return value
    }

    /// A literal as a `FlagValue`; `Type(label: value, ...)` becomes an object keyed by the labels.
    private func flagValue(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> FlagValue {
        if let literal = expression.as(IntegerLiteralExprSyntax.self), let number = Int(literal.literal.text.filter { $0 != "_" }) {
            return .int(number)
        }
        if let literal = expression.as(FloatLiteralExprSyntax.self), let number = Double(literal.literal.text.filter { $0 != "_" }) {
            return .double(number)
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            switch try flagValue(prefix.expression, location: location, subject: subject) {
            case .int(let number): return .int(-number)
            case .double(let number): return .double(-number)
            default: break
            }
        }
        if let literal = expression.as(BooleanLiteralExprSyntax.self) { return .bool(literal.literal.tokenKind == .keyword(.true)) }
        if expression.is(NilLiteralExprSyntax.self) { return .null }
        if expression.is(StringLiteralExprSyntax.self) { return .string(try string(expression, location: location, subject: subject)) }
        if let array = expression.as(ArrayExprSyntax.self) {
            var values: [FlagValue] = []
            for element in array.elements { values.append(try flagValue(element.expression, location: location, subject: subject)) }
            return .array(values)
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self) {
            var members: [String: FlagValue] = [:]
            if case .elements(let elements) = dictionary.content {
                for element in elements {
                    let key = try string(element.key, location: location, subject: subject)
                    members[key] = try flagValue(element.value, location: location, subject: subject)
                }
            }
            return .object(members)
        }
        if let call = expression.as(FunctionCallExprSyntax.self), call.trailingClosure == nil,
            call.calledExpression.trimmedDescription.split(separator: ".").last?.first?.isUppercase == true,
            call.arguments.allSatisfy({ $0.label != nil })
        {
            var members: [String: FlagValue] = [:]
            for argument in call.arguments {
                members[argument.label!.text] = try flagValue(argument.expression, location: location, subject: subject)
            }
            return .object(members)
        }
        throw failure(
            location, subject,
            "\(expression.trimmedDescription) is not a literal; flags export reads literal values only (numbers, strings, Booleans, arrays, dictionaries, enum cases, Type(label: value) calls).")
    }

    private func buildDefaults(
        _ expression: ExprSyntax, swiftType: String?, location: String, subject: String
    ) throws(ToolingError) -> [BuildConfiguration: FlagValue] {
        guard let dictionary = expression.as(DictionaryExprSyntax.self) else {
            throw failure(location, subject, "expected a dictionary literal such as [.debug: 10], found \(expression.trimmedDescription).")
        }
        var result: [BuildConfiguration: FlagValue] = [:]
        if case .elements(let elements) = dictionary.content {
            for element in elements {
                result[try configuration(element.key, location: location, subject: subject)] =
                    try value(element.value, swiftType: swiftType, location: location, subject: subject)
            }
        }
        return result
    }

    /// `.integer(1...500)` or `.double(0.1...30)` (also `FlagValueRange.integer(...)`).
    private func flagValueRange(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> FlagValueRange {
        guard let call = expression.as(FunctionCallExprSyntax.self), call.arguments.count == 1,
            let argument = call.arguments.first, argument.label == nil,
            let name = call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text,
            let type = ["integer": FlagValueType.integer, "double": .double][name]
        else {
            throw failure(location, subject, "expected .integer(1...500) or .double(0.1...30), found \(expression.trimmedDescription).")
        }
        return try closedRange(argument.expression, type: type, location: location, subject: subject)
    }

    /// A closed range literal `lower...upper` of whole numbers (`integer`) or numbers (`double`).
    private func closedRange(
        _ expression: ExprSyntax, type: FlagValueType, location: String, subject: String
    ) throws(ToolingError) -> FlagValueRange {
        var bounds: (ExprSyntax, ExprSyntax)?
        if let sequence = expression.as(SequenceExprSyntax.self), sequence.elements.count == 3 {
            let parts = Array(sequence.elements)
            if parts[1].as(BinaryOperatorExprSyntax.self)?.operator.text == "..." { bounds = (parts[0], parts[2]) }
        } else if let infix = expression.as(InfixOperatorExprSyntax.self),
            infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "..."
        {
            bounds = (infix.leftOperand, infix.rightOperand)
        }
        let example = type == .integer ? "1...500" : "0.1...30"
        guard let (lowerExpression, upperExpression) = bounds else {
            throw failure(location, subject, "expected a closed range literal such as \(example), found \(expression.trimmedDescription).")
        }
        let lower = try flagValue(lowerExpression, location: location, subject: subject)
        let upper = try flagValue(upperExpression, location: location, subject: subject)
        switch (type, lower, upper) {
        case (.integer, .int(let lower), .int(let upper)) where lower <= upper:
            return .integer(lower...upper)
        case (.double, .int, _), (.double, .double, _):
            if let lower = lower.doubleValue, let upper = upper.doubleValue, lower.isFinite, upper.isFinite, lower <= upper {
                return .double(lower...upper)
            }
        default: break
        }
        throw failure(
            location, subject,
            "expected a closed range of \(type == .integer ? "whole numbers" : "numbers") with its lower bound first, such as \(example), found \(expression.trimmedDescription).")
    }

    private func elements(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> [ExprSyntax] {
        guard let array = expression.as(ArrayExprSyntax.self) else {
            throw failure(location, subject, "expected an array literal, found \(expression.trimmedDescription).")
        }
        return array.elements.map(\.expression)
    }

    /// `.name` or `Type.name`, without backticks.
    private func caseName(_ expression: ExprSyntax) -> String? {
        expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text.filter { $0 != "`" }
    }

    private func configuration(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> BuildConfiguration {
        guard let name = caseName(expression), let configuration = BuildConfiguration(rawValue: name) else {
            throw failure(location, subject, "expected a build configuration (.debug, .alpha, .internal, .release), found \(expression.trimmedDescription).")
        }
        return configuration
    }

    private func checking(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> CheckingMode {
        guard let name = caseName(expression), let mode = CheckingMode(rawValue: name) else {
            throw failure(location, subject, "expected .buildOnly, .userOnly or .buildAndUser, found \(expression.trimmedDescription).")
        }
        return mode
    }

    private func string(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> String {
        guard let literal = expression.as(StringLiteralExprSyntax.self), literal.openingPounds == nil,
            let text = literal.simpleText
        else {
            throw failure(location, subject, "expected a string literal without interpolation, found \(expression.trimmedDescription).")
        }
        return Self.unescaped(text)
    }

    /// The characters a string literal's escapes stand for (`\\n`, `\\"`, `\\u{1F600}`…).
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var output = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "\\", let escape = characters.next() else {
                output.append(character)
                continue
            }
            switch escape {
            case "n": output.append("\n")
            case "t": output.append("\t")
            case "r": output.append("\r")
            case "0": output.append("\0")
            case "u":
                var hex = ""
                while let next = characters.next(), next != "}" {
                    if next != "{" { hex.append(next) }
                }
                if let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) { output.unicodeScalars.append(scalar) }
            default: output.append(escape)
            }
        }
        return output
    }

    private func optionalString(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> String? {
        expression.is(NilLiteralExprSyntax.self) ? nil : try string(expression, location: location, subject: subject)
    }

    private func optionalInt(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> Int? {
        if expression.is(NilLiteralExprSyntax.self) { return nil }
        guard case .int(let number) = try flagValue(expression, location: location, subject: subject) else {
            // A literal of another kind.
            throw failure(location, subject, "expected a whole number, found \(expression.trimmedDescription).")
        }
        return number
    }

    private func bool(_ expression: ExprSyntax, location: String, subject: String) throws(ToolingError) -> Bool {
        guard let literal = expression.as(BooleanLiteralExprSyntax.self) else {
            throw failure(location, subject, "expected true or false, found \(expression.trimmedDescription).")
        }
        return literal.literal.tokenKind == .keyword(.true)
    }
}
