#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which bounds the connections
/// it can hold: every connection is a descriptor.
///
/// The server must never use its last descriptor. libdispatch (under Swift concurrency on Linux)
/// opens `/proc/<tid>/stat` for its worker threads about once a second and traps (`SIGILL`)
/// when that open fails, so a process that accepts connections until `accept` fails with
/// `EMFILE` crashes. ``ServerLimits/connectionCap(descriptorLimit:)`` keeps
/// ``reserved(below:)`` descriptors free for that, for the database, and for refusing
/// connections past the cap.
public struct DescriptorLimit: Sendable, Hashable, CustomStringConvertible {
    /// The limit the kernel enforces now.
    public var soft: Int
    /// The most the soft limit may be raised to without privileges.
    public var hard: Int

    /// Limits as `getrlimit(RLIMIT_NOFILE)` reports them.
    public init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    /// `soft (hard limit hard)`, for the start-up log.
    public var description: String { "\(soft) (hard limit \(hard))" }

    /// The process's limit, or `nil` where it cannot be read.
    public static func current() -> DescriptorLimit? {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return nil }
        return DescriptorLimit(soft: Self.integer(limit.rlim_cur), hard: Self.integer(limit.rlim_max))
    }

    /// Sets the soft limit to `target` (`nil`: the hard limit), never above the hard limit.
    ///
    /// - Returns: The limit in force afterwards (unchanged when setting it failed).
    @discardableResult
    public static func raise(to target: Int? = nil) -> DescriptorLimit? {
        var raw = rlimit()
        guard getrlimit(Self.resource, &raw) == 0 else { return nil }
        var limit = DescriptorLimit(soft: Self.integer(raw.rlim_cur), hard: Self.integer(raw.rlim_max))
        #if canImport(Darwin)
        // Darwin refuses a soft limit above OPEN_MAX even when the hard limit is unlimited.
        let wanted = min(target ?? limit.hard, limit.hard, Int(OPEN_MAX))
        #else
        let wanted = min(target ?? limit.hard, limit.hard)
        #endif
        guard wanted != limit.soft, wanted > 0 else { return limit }
        raw.rlim_cur = rlim_t(wanted)
        guard setrlimit(Self.resource, &raw) == 0 else { return limit }
        limit.soft = wanted
        return limit
    }

    /// Descriptors left free below a soft limit of `soft`: a quarter of it, at most 256.
    public static func reserved(below soft: Int) -> Int { min(256, soft / 4) }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    #if canImport(Darwin)
    private static let unlimited = RLIM_INFINITY
    #else
    /// `RLIM_INFINITY`, which Swift does not import from glibc (`(__rlim_t) -1`).
    private static let unlimited = rlim_t.max
    #endif

    private static func integer(_ value: rlim_t) -> Int {
        value == unlimited ? Int.max : Int(clamping: value)
    }
}
