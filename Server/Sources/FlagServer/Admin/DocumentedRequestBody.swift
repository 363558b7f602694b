/// A request body the OpenAPI document describes: ``JSONBody/decode(_:from:limit:)`` checks it
/// against `#/components/schemas/<schemaName>` before decoding it.
protocol DocumentedRequestBody: Decodable {
    /// The name of the body's schema under `components/schemas` in `openapi.json`.
    static var schemaName: String { get }
}

extension AdminRequests.CreateEnvironment: DocumentedRequestBody {
    static var schemaName: String { "CreateEnvironment" }
}

extension AdminRequests.PutFlag: DocumentedRequestBody {
    static var schemaName: String { "PutFlag" }
}

extension AdminRequests.PutSettings: DocumentedRequestBody {
    static var schemaName: String { "PutSettings" }
}

extension AdminRequests.PutSegment: DocumentedRequestBody {
    static var schemaName: String { "PutSegment" }
}

extension AdminRequests.Revert: DocumentedRequestBody {
    static var schemaName: String { "Revert" }
}

extension AdminRequests.Lifecycle: DocumentedRequestBody {
    static var schemaName: String { "Lifecycle" }
}

extension AdminRequests.CreateToken: DocumentedRequestBody {
    static var schemaName: String { "CreateToken" }
}

extension AdminRequests.RegisterFlags: DocumentedRequestBody {
    static var schemaName: String { "RegisterFlags" }
}

extension AdminRequests.Preview: DocumentedRequestBody {
    static var schemaName: String { "Preview" }
}

extension AdminRequests.Copy: DocumentedRequestBody {
    static var schemaName: String { "Copy" }
}

extension AdminRequests.Evaluate: DocumentedRequestBody {
    static var schemaName: String { "EvaluateRequest" }
}

extension AdminRequests.CreateUser: DocumentedRequestBody {
    static var schemaName: String { "CreateUser" }
}

extension AdminRequests.PutUser: DocumentedRequestBody {
    static var schemaName: String { "PutUser" }
}

extension AdminRequests.OrderEnvironments: DocumentedRequestBody {
    static var schemaName: String { "OrderEnvironments" }
}
