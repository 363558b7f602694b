/// Bounds on what the server accepts from outside.
public struct ServerLimits: Sendable, Hashable {
    /// Largest OFREP evaluation request body (the context). Default 64 KiB.
    public var maximumEvaluationBytes: Int
    /// Largest admin request body. Default 1 MiB.
    public var maximumAdminBytes: Int
    /// Largest import document. Default 8 MiB.
    public var maximumImportBytes: Int
    /// Event streams open at once in the process; one more is refused 503 with `Retry-After`.
    /// Default 100,000 (each idle stream costs a few KiB; see `Docs/Scale.md`).
    public var maximumEventStreams: Int = 100_000
    /// Event streams open at once per token; one more is refused 429 with `Retry-After`. Default 64.
    public var maximumEventStreamsPerToken: Int = 64
    /// Event streams being set up at once (authenticated, counted, subscribed, first lines
    /// written); an opening past it waits, holding only its request head, so that a burst of
    /// openings cannot crowd out evaluation. Default 16.
    public var maximumConcurrentStreamOpenings: Int = 16
    /// The longest a write may take (waiting for other writes and for a database connection
    /// included) before it fails 503 with `Retry-After`; a write past it is rolled back, never
    /// committed later. Default 10 s.
    public var writeTimeout: Duration = .seconds(10)
    /// The longest a replica waits for the database before answering a refetch that names a
    /// revision it does not serve yet (see ``ReplicaCatchUp``); past it, 503 with `Retry-After`.
    /// Default 2 s.
    public var catchUpLimit: Duration = .seconds(2)
    /// How long a connection may go without a complete request head or response part: an idle
    /// keep-alive connection, or one sending its headers too slowly, is closed then. Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// The longest pause allowed between two pieces of a request body; the connection is closed
    /// then. Default 10 s.
    public var bodyTimeout: Duration = .seconds(10)
    /// Largest request head (request line and headers); a larger one is answered 431 and the
    /// connection closed. Default 32 KiB.
    public var maximumHeaderBytes: Int = 32 * 1024
    /// Connections open at once; one more is answered 503 with `Retry-After` and closed. Default
    /// 100,000, lowered at start to what the process's descriptor limit allows
    /// (``connectionCap(descriptorLimit:)``).
    public var maximumConnections: Int = 100_000
    /// Connections the kernel queues for the server to accept (the `listen` backlog); Linux caps it
    /// at `net.core.somaxconn`. Default 4,096.
    public var listenBacklog: Int = 4096

    /// The connections the process holds at once: ``maximumConnections``, lowered so that
    /// ``DescriptorLimit/reserved(below:)`` descriptors stay free below the soft limit (for the
    /// database, the runtime, and refusing connections past the cap): a process that runs out
    /// of descriptors crashes (see ``DescriptorLimit``).
    public func connectionCap(descriptorLimit: DescriptorLimit?) -> Int {
        guard let soft = descriptorLimit?.soft, soft < Int.max else { return maximumConnections }
        return max(1, min(maximumConnections, soft - DescriptorLimit.reserved(below: soft)))
    }

    /// The largest body any route accepts: a request declaring more (`Content-Length`) is answered
    /// 413 before its body is read, and the connection closed.
    public var maximumRequestBytes: Int { max(maximumEvaluationBytes, maximumAdminBytes, maximumImportBytes) }

    /// Limits of 64 KiB for evaluations, 1 MiB for admin writes and 8 MiB for imports by default.
    public init(maximumEvaluationBytes: Int = 64 * 1024, maximumAdminBytes: Int = 1024 * 1024, maximumImportBytes: Int = 8 * 1024 * 1024) {
        self.maximumEvaluationBytes = maximumEvaluationBytes
        self.maximumAdminBytes = maximumAdminBytes
        self.maximumImportBytes = maximumImportBytes
    }
}
