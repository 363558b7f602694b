import FlagEvaluation
import Testing

@testable import FlagServer

struct RequestSchemaValidatorTests {
    /// `uniqueItems` compares items as JSON values: `1` and `1.0` are the same item.
    @Test func uniqueItemsRefusesARepeatedItemByJSONEquality() throws {
        let document = try JSONValue(
            parsing: #"{"components": {"schemas": {"List": {"type": "array", "uniqueItems": true, "items": {}}}}}"#)
        let validator = RequestSchemaValidator(document: document)
        #expect(validator.problems(in: try JSONValue(parsing: #"["a", "b", 1, 2.5]"#), schema: "List").isEmpty)
        let repeated = validator.problems(in: try JSONValue(parsing: #"["a", 1, "b", 1.0]"#), schema: "List")
        #expect(repeated.count == 1)
        #expect(repeated.first?.problem.contains("must not list an item twice") == true, "\(repeated)")
        #expect(validator.problems(in: try JSONValue(parsing: #"["a", "a"]"#), schema: "List").count == 1)
    }

    /// The served document's environment order refuses a name listed twice as a request error.
    @Test func theEnvironmentOrderListsEveryNameOnce() throws {
        let validator = try #require(RequestSchemaValidator.document)
        let problems = validator.problems(
            in: try JSONValue(parsing: #"{"environments": ["production", "production"]}"#), schema: "OrderEnvironments")
        #expect(problems.map(\.field) == ["environments"])
    }
}
