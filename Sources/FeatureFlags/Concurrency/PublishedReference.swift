#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#endif
import Synchronization

/// An immutable object published for lock-free reads: readers borrow (or retain) the current
/// object without locking; a writer swaps in a new one and frees the old one once no reader
/// can still be using it.
///
/// ```swift
/// let published = PublishedReference(table)
/// let count = published.withCurrent { $0.count }   // borrowed: no lock, no retain
/// published.replace(with: newTable)               // writers are serialized by the caller
/// ```
///
/// How the old object is known to be unused: a reader announces itself in a counter of the
/// current *epoch parity* (one counter per parity in each of a few stripes, each on its own cache
/// line, picked by the reader's stack address, so two threads rarely share one), checks that the
/// epoch did not move meanwhile (else it retries), and only then loads the object. A writer
/// exchanges the object, advances the epoch, and waits until the old parity's counters drain:
/// every reader that could have loaded the old object has announced itself in them. Readers never
/// wait; a writer waits at most for the readers in flight, which hold no lock and run a few
/// instructions. Callers serialize writers (the engine replaces under its state lock) and never
/// write from inside `withCurrent`.
///
/// `@unchecked Sendable`: the object is reached only through `Atomic` operations, freed only
/// after the protocol above shows no reader holds it, and `Object` itself is `Sendable`.
package final class PublishedReference<Object: AnyObject & Sendable>: @unchecked Sendable {  // safe: see above
    private let current: Atomic<Unmanaged<Object>>
    private let epoch = Atomic<Int>(0)
    /// `2 * stripes` reader counters, `stride` words apart: counter `parity * stripes + stripe`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    private static var stripes: Int { 8 }
    /// 128 bytes: a cache line, or a pair of them on CPUs that fetch lines in pairs.
    private static var stride: Int { 16 }

    package init(_ object: Object) {
        current = Atomic(Unmanaged.passRetained(object))
        let words = 2 * Self.stripes * Self.stride
        counters = .allocate(capacity: words)
        for index in 0..<words { (counters + index).initialize(to: Atomic<Int>(0)) }
    }

    deinit {
        current.load(ordering: .sequentiallyConsistent).release()
        counters.deinitialize(count: 2 * Self.stripes * Self.stride)
        counters.deallocate()
    }

    /// Runs `body` with the current object, borrowed for the duration of the call. `body` must be
    /// short and must not replace the object.
    package func withCurrent<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        let counter = enter()
        defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
        return try current.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef(body)
    }

    /// The current object, retained.
    package func load() -> Object {
        withCurrent { $0 }
    }

    /// Publishes `object` and releases the previous one once no reader uses it. Writers must be
    /// serialized by the caller.
    package func replace(with object: Object) {
        let old = current.exchange(Unmanaged.passRetained(object), ordering: .sequentiallyConsistent)
        let parity = epoch.add(1, ordering: .sequentiallyConsistent).oldValue & 1
        for stripe in 0..<Self.stripes {
            let counter = counters + (parity * Self.stripes + stripe) * Self.stride
            while counter.pointee.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        }
        old.release()
    }

    /// Announces a reader in the current epoch's counter of its stripe; returns that counter.
    private func enter() -> UnsafeMutablePointer<Atomic<Int>> {
        var marker = 0
        // Thread stacks lie hundreds of kilobytes or more apart, so a hash of a stack address
        // above its low 16 bits tells threads apart without a system call; a collision costs
        // contention, never correctness.
        let stripe = withUnsafeMutablePointer(to: &marker) { pointer in
            Int(((UInt64(UInt(bitPattern: pointer)) >> 16) &* 0x9E37_79B9_7F4A_7C15) >> 61)
        }
        while true {
            let seen = epoch.load(ordering: .sequentiallyConsistent)
            let counter = counters + ((seen & 1) * Self.stripes + stripe) * Self.stride
            counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if epoch.load(ordering: .sequentiallyConsistent) == seen { return counter }
            counter.pointee.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        }
    }
}
