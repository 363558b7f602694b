public import FeatureFlags
public import FlagEvaluation
public import Foundation

/// Feeds the remote layer from flagd flag definitions evaluated for an evaluation context, so an
/// app or a server reads targeted values (percentage rollouts, rules on user attributes) through
/// its typed registry.
///
/// ```swift
/// let targeting = try TargetingFlagProvider(
///     files: [URL(filePath: "flags.json")], registry: flags.engine.registry,
///     context: EvaluationContext(targetingKey: user.id, attributes: ["plan": "pro"]))
/// flags.configure(FlagSetup(buildConfiguration: .release, remoteProvider: targeting))
///
/// // On a server, per request, without touching the shared flags:
/// let snapshot = flags.snapshot(applying: targeting.values(for: requestContext))
/// ```
///
/// The context of `loadFlags()`, `refresh()` and `cachedFlags()` carries the app context's fields
/// (`appVersion`, `appBuild`, `osName`, `osVersion`, `deviceClass`, `locale`) beside its own
/// attributes, so a rule can target the app's version without any code; an attribute the context
/// sets itself wins. A context passed to ``values(for:)`` (a server's request) is taken as given.
///
/// Only flags of the registry are evaluated, each as its declared type. A flag the definitions
/// do not have, that is disabled, that has no default variant, or whose evaluation fails says
/// nothing, so the layers below decide.
public struct TargetingFlagProvider: RemoteFlagProvider {
    /// The evaluator over the loaded definitions.
    public let evaluator: FlagEvaluator
    /// The registry whose flags are evaluated.
    public let registry: FlagRegistry
    /// The context used by `loadFlags()`, `refresh()` and `cachedFlags()`: the one given, with
    /// the app context's fields it does not set itself.
    public let context: EvaluationContext
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - definitions: Loaded flag definitions.
    ///   - registry: The registry whose flags to evaluate.
    ///   - context: The context for the manager's remote layer.
    ///   - appContext: The app and device facts added to `context` (``AppContext/current`` by
    ///     default, read once); `nil` adds none.
    ///   - bucketing: The `fractional` bucketing version.
    ///   - now: The clock rules see as `$flagd.timestamp`.
    public init(
        definitions: FlagDefinitions, registry: FlagRegistry, context: EvaluationContext = EvaluationContext(),
        appContext: AppContext? = .current, bucketing: FractionalBucketing = .current,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.evaluator = FlagEvaluator(definitions: definitions, bucketing: bucketing)
        self.registry = registry
        var context = context
        for (name, value) in appContext?.attributes ?? [:] where context.attributes[name] == nil {
            context.attributes[name] = JSONValue(value)
        }
        self.context = context
        self.now = now
    }

    /// Loads definition files (later files win, as in flagd).
    ///
    /// - Throws: ``FlagDefinitionLoadFailure`` listing every problem, when any file or flag is
    ///   invalid; or the error reading a file.
    public init(
        files: [URL], registry: FlagRegistry, context: EvaluationContext = EvaluationContext(),
        appContext: AppContext? = .current, bucketing: FractionalBucketing = .current,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let sources = try files.map { FlagSource(name: $0.lastPathComponent, data: try Data(contentsOf: $0)) }
        let definitions = try FlagDefinitions.loadStrictly(sources)
        self.init(
            definitions: definitions, registry: registry, context: context, appContext: appContext, bucketing: bucketing,
            now: now)
    }

    /// The registry's flags evaluated for `context`.
    public func values(for context: EvaluationContext) -> RemoteFlagValues {
        let timestamp = now()
        var values: [String: RemoteFlagValue] = [:]
        for definition in registry.definitions where evaluator.definitions[definition.key] != nil {
            let result = evaluator.evaluate(
                flag: definition.key, type: EvaluationType(definition.type), default: JSONValue(definition.defaultValue),
                context: context, now: timestamp)
            guard result.errorCode == nil, result.variant != nil,
                let value = FlagValue(result.value).normalized(to: definition.type)
            else { continue }
            values[definition.key] = RemoteFlagValue(value, variant: result.variant, reason: FlagReason(rawValue: result.reason.rawValue))
        }
        return RemoteFlagValues(values, source: "flag definitions")
    }

    /// The registry's flags evaluated for the provider's context, at once.
    public func cachedFlags() -> RemoteFlagValues? {
        values(for: context)
    }

    /// The registry's flags evaluated for the provider's context.
    public func loadFlags() async throws -> RemoteFlagValues {
        values(for: context)
    }

    /// The registry's flags evaluated for the provider's context again (the definitions do not change).
    public func refresh() async throws -> RemoteFlagValues {
        values(for: context)
    }
}

extension EvaluationType {
    /// The evaluation type for a registry type.
    init(_ type: FlagValueType) {
        switch type {
        case .boolean: self = .boolean
        case .integer: self = .integer
        case .double: self = .float
        case .string: self = .string
        case .object: self = .object
        }
    }
}

extension JSONValue {
    /// The JSON value of a flag value.
    public init(_ value: FlagValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(JSONValue.init))
        case .object(let members): self = .object(members.mapValues(JSONValue.init))
        }
    }
}

extension FlagValue {
    /// The flag value of a JSON value.
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(FlagValue.init))
        case .object(let members): self = .object(members.mapValues(FlagValue.init))
        }
    }
}
