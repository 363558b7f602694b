/// Bounds on what the server accepts from outside.
public struct ServerLimits: Sendable, Hashable {
    /// Largest OFREP evaluation request body (the context). Default 64 KiB.
    public var maximumEvaluationBytes: Int
    /// Largest admin request body. Default 1 MiB.
    public var maximumAdminBytes: Int
    /// Largest import document. Default 8 MiB.
    public var maximumImportBytes: Int

    public init(maximumEvaluationBytes: Int = 64 * 1024, maximumAdminBytes: Int = 1024 * 1024, maximumImportBytes: Int = 8 * 1024 * 1024) {
        self.maximumEvaluationBytes = maximumEvaluationBytes
        self.maximumAdminBytes = maximumAdminBytes
        self.maximumImportBytes = maximumImportBytes
    }
}
