import FeatureFlags
import FlagEvaluation
import Foundation

/// The JSON parser behind every public entry point that reads JSON.
///
/// Invariants:
/// - `FlagValue(jsonData:)`, `FlagValue(json:)` (for UTF-8 input) and `JSONValue(parsing:)`
///   accept and reject the same inputs;
/// - what is parsed, written (`jsonString`, `serialized()`, pretty-printed) and parsed again
///   is identical to the first parse;
/// - writing is deterministic: writing the re-parsed value gives the same text.
enum JSONTarget {
    static func run(_ data: Data) {
        let flagValue = try? FlagValue(jsonData: data)
        let jsonValue = try? JSONValue(parsing: data)
        Invariant.require(
            (flagValue == nil) == (jsonValue == nil),
            "FlagValue(jsonData:) \(flagValue == nil ? "rejected" : "accepted") the input, JSONValue(parsing:) \(jsonValue == nil ? "rejected" : "accepted") it")
        if let text = String(validatingUTF8Data: data) {
            let fromText = try? FlagValue(json: text)
            Invariant.require(
                fromText == flagValue || (fromText.map { flagValue?.isSameJSON(as: $0) ?? false } ?? false),
                "FlagValue(json:) and FlagValue(jsonData:) disagree on the same UTF-8 text: \(String(describing: fromText)) vs \(String(describing: flagValue))")
        }

        if let flagValue {
            let written = flagValue.jsonString
            let reread: FlagValue
            do {
                reread = try FlagValue(json: written)
            } catch {
                Invariant.fail("FlagValue.jsonString wrote text it cannot read back: \(written) (\(error))")
            }
            Invariant.require(
                reread == flagValue, "FlagValue round trip changed the value: \(flagValue.dump) became \(reread.dump) via \(written)")
            Invariant.require(reread.jsonString == written, "FlagValue.jsonString is not deterministic for \(written)")
        }

        if let jsonValue {
            for pretty in [false, true] {
                let written = jsonValue.serialized(prettyPrinted: pretty)
                let reread: JSONValue
                do {
                    reread = try JSONValue(parsing: written)
                } catch {
                    Invariant.fail("JSONValue.serialized(prettyPrinted: \(pretty)) wrote text it cannot read back: \(written) (\(error))")
                }
                Invariant.require(
                    reread == jsonValue,
                    "JSONValue round trip (prettyPrinted: \(pretty)) changed the value: \(String(reflecting: jsonValue)) became \(String(reflecting: reread))")
                Invariant.require(
                    reread.serialized(prettyPrinted: pretty) == written,
                    "JSONValue.serialized(prettyPrinted: \(pretty)) is not deterministic for \(written)")
            }
        }
    }
}

extension String {
    /// The data as a string when it is valid UTF-8, without repairing it.
    init?(validatingUTF8Data data: Data) {
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: self = String(scalars); return
            case .error: return nil
            }
        }
    }
}
