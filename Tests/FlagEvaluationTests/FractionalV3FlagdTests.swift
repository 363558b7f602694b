import FlagEvaluation
import Testing

/// `fractional` with v3 bucketing against flagd's own: every case of `FractionalV3Fixture.swift`
/// (written by `scripts/flagd_fractional_v3_fixture.py` from what openfeature-flagd-core 2.0.0's
/// `fractional` returned) must choose the same variant here.
struct FractionalV3FlagdTests {
    struct Case: CustomStringConvertible {
        let flagKey: String
        let targetingKey: String
        let bucketBy: JSONValue
        let buckets: JSONValue
        let expected: JSONValue

        var description: String {
            "flag \(flagKey), targeting key \(targetingKey.debugDescription), bucketing value \(bucketBy.serialized())"
        }
    }

    static let cases: [Case] = {
        guard case .array(let elements)? = try? JSONValue(parsing: fractionalV3Fixture) else { return [] }
        return elements.map { element in
            Case(
                flagKey: element["flagKey"]?.stringValue ?? "", targetingKey: element["targetingKey"]?.stringValue ?? "",
                bucketBy: element["bucketBy"] ?? .null, buckets: element["buckets"] ?? .null,
                expected: element["expected"] ?? .null)
        }
    }()

    @Test func theFixtureCoversEveryKindOfBucketingValue() {
        #expect(Self.cases.count > 800)
        let kinds = Set(Self.cases.map { $0.bucketBy.typeName })
        #expect(kinds.isSuperset(of: ["null", "string", "number", "array", "object", "boolean"]), "\(kinds)")
    }

    @Test func everyCaseChoosesFlagdsVariant() throws {
        var mismatches: [String] = []
        for item in Self.cases {
            guard case .array(let buckets) = item.buckets else { Issue.record("no buckets: \(item)"); continue }
            var data: JSONValue = ["targetingKey": .string(item.targetingKey), "$flagd": ["flagKey": .string(item.flagKey)]]
            let arguments: [JSONValue]
            switch item.bucketBy {
            case .null:
                arguments = buckets  // the shorthand
            case .array:
                arguments = [item.bucketBy] + buckets  // written as an array: a bucket, as in flagd
            default:
                // Read from the data, so that an object is a value rather than an operation.
                data = data.merging(["subject": item.bucketBy])
                arguments = [["var": "subject"]] + buckets
            }
            let rule = try JSONLogicRule(["fractional": .array(arguments)])
            let chosen = rule.evaluate(data: data, bucketing: .v3)
            if chosen != item.expected {
                mismatches.append("\(item): flagd chose \(item.expected.serialized()), v3 here \(chosen.serialized())")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(Self.cases.count): \(mismatches.prefix(5))")
    }
}

extension JSONValue {
    fileprivate func merging(_ other: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members.merge(other) { $1 }
        return .object(members)
    }
}
