/// Makes the values of a JSON tree for ``JSONParser``: one function per JSON type.
///
/// Conform a small internal type (not the value type itself), so that the conformance stays out of
/// the public API of the module that uses the parser:
///
/// ```swift
/// enum FlagValueTreeBuilder: JSONTreeBuilder {
///     static func null() -> FlagValue { .null }
///     ...
/// }
/// let value = try JSONParser<FlagValueTreeBuilder>.parse(data)
/// ```
///
/// Public, rather than `package`, because the Swift 6.3 compiler inlines and specializes only
/// public `@inlinable` code across modules, and the parser is several times slower unspecialized.
/// The module is no product, so apps cannot import it.
public protocol JSONTreeBuilder {
    /// The value type the parser builds.
    associatedtype Value
    /// JSON `null`.
    static func null() -> Value
    /// A Boolean.
    static func bool(_ value: Bool) -> Value
    /// A number written without a fraction or exponent that fits in `Int`.
    static func int(_ value: Int) -> Value
    /// A number written with a fraction or an exponent, or an integer too large for `Int`.
    static func floatingPoint(_ value: Double) -> Value
    /// A string, escapes decoded.
    static func string(_ value: String) -> Value
    /// An array of `elements`, in document order.
    static func array(_ elements: [Value]) -> Value
    /// An object of `members` (the parser refuses repeated keys).
    static func object(_ members: [String: Value]) -> Value
}
