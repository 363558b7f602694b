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

/// An immutable object published for lock-free reads: readers retain (or borrow) the current
/// object without locking; a writer swaps in a new one and frees the old one once no reader
/// can still be using it.
///
/// ```swift
/// let published = PublishedReference(table)
/// let table = published.load()                      // retained: one atomic add, no retain call
/// let count = published.withCurrent { $0.count }   // borrowed: no lock, no retain
/// published.replace(with: newTable)               // writers are serialized by the caller
/// ```
///
/// **Retained reads (`load`) claim a reference paid in advance.** The published word holds the
/// object's address and, in its top 16 bits, a count of *claims*. A writer retains a new object
/// `batch` extra times (one call, see ``RuntimeReferenceCounts``) before publishing it. A reader adds
/// one claim to the word (one atomic add, which also reads the address) and, when its claim
/// number is below `batch`, owns one of those references: the reader never retains, and the
/// object cannot be freed between reading its address and owning a reference, because the word
/// itself owns the reference the reader takes. When a writer replaces the object, the exchange
/// returns the count of claims made, and the writer releases the references nobody claimed (and
/// the word's own one). A reader whose claim number reaches `batch` refills: under the epoch
/// protection below it retains the object `batch + 1` times and resets the count with a
/// compare-and-exchange (or undoes its retains if another reader or a writer got there first).
///
/// **Borrowed reads (`withCurrent`) announce themselves.** A reader announces itself in a counter
/// of the current *epoch parity* (one counter per parity in each of a few stripes, each on its
/// own cache line, picked by the reader's stack address, so two threads rarely share one),
/// checks that the epoch did not move meanwhile (else it retries), and only then loads the
/// object. A writer exchanges the object, advances the epoch, and waits until the old parity's
/// counters drain: every reader that could have loaded the old object has announced itself in
/// them. Readers never wait; a writer waits at most for the readers in flight, which hold no
/// lock and run a few instructions. Callers serialize writers (the engine replaces under its
/// state lock) and never write from inside `withCurrent`.
///
/// `@unchecked Sendable`: the object is reached only through `Atomic` operations, released only
/// when the protocols above show that no reader can still take or borrow it, and `Object` itself
/// is `Sendable`.
package final class PublishedReference<Object: AnyObject & Sendable>: @unchecked Sendable {  // safe: see above
    /// The object's address in the low 48 bits, the claims made on its prepaid references in
    /// the top 16 bits.
    private let current: Atomic<UInt64>
    private let epoch = Atomic<Int>(0)
    /// `2 * stripes` reader counters, `stride` words apart: counter `parity * stripes + stripe`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    private static var stripes: Int { 8 }
    /// 128 bytes: a cache line, or a pair of them on CPUs that fetch lines in pairs.
    private static var stride: Int { 16 }
    /// References paid in advance per refill. The claim count (16 bits) passes `batch` only by
    /// the readers in flight between a failed claim and the refill, at most two per thread, so
    /// it stays far below the 65,536 at which it would wrap.
    private let batch: UInt64
    private static var claimUnit: UInt64 { 1 << 48 }

    /// Publishes `object`.
    ///
    /// - Parameter batch: references paid in advance per refill, 1...16,384 (small values only
    ///   to exercise refills in tests). Without the runtime's batch calls every prepaid
    ///   reference costs a retain of its own, so the default batch is small there.
    package init(_ object: Object, batch: Int = RuntimeReferenceCounts.isBatched ? 1 << 14 : 64) {
        precondition((1...(1 << 14)).contains(batch), "PublishedReference batch must be 1...16384")
        self.batch = UInt64(batch)
        current = Atomic(Self.publishing(object, batch: UInt64(batch)))
        let words = 2 * Self.stripes * Self.stride
        counters = .allocate(capacity: words)
        for index in 0..<words { (counters + index).initialize(to: Atomic<Int>(0)) }
    }

    deinit {
        Self.releaseUnclaimed(current.load(ordering: .acquiring), batch: batch)
        counters.deinitialize(count: 2 * Self.stripes * Self.stride)
        counters.deallocate()
    }

    /// Runs `body` with the current object, borrowed for the duration of the call. `body` must be
    /// short and must not replace the object.
    package func withCurrent<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        let counter = enter()
        defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
        let word = current.load(ordering: .sequentiallyConsistent)
        return try Unmanaged<Object>.fromOpaque(Self.address(word))._withUnsafeGuaranteedRef(body)
    }

    /// The current object, retained: one atomic add on the fast path.
    @inline(__always)
    package func load() -> Object {
        let word = current.wrappingAdd(Self.claimUnit, ordering: .acquiring).oldValue
        guard word >> 48 < batch else { return loadRefilling() }
        // Sound: claim numbers below `batch` each own one of the references retained in advance
        // for this address, which the word keeps until a writer releases the unclaimed ones.
        return Unmanaged<Object>.fromOpaque(Self.address(word)).takeRetainedValue()
    }

    /// Publishes `object` and releases the previous one once no reader uses it. Writers must be
    /// serialized by the caller.
    package func replace(with object: Object) {
        let old = current.exchange(Self.publishing(object, batch: batch), ordering: .sequentiallyConsistent)
        let parity = epoch.add(1, ordering: .sequentiallyConsistent).oldValue & 1
        for stripe in 0..<Self.stripes {
            let counter = counters + (parity * Self.stripes + stripe) * Self.stride
            while counter.pointee.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        }
        Self.releaseUnclaimed(old, batch: batch)
    }

    /// The slow path of ``load()``, once per `batch` loads: pays the next batch in advance.
    @inline(never)
    private func loadRefilling() -> Object {
        let counter = enter()
        defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
        // Every address read from here on stays allocated until this reader leaves: a writer
        // that replaces it waits for the announcement above before releasing it.
        var word = current.load(ordering: .sequentiallyConsistent)
        while true {
            if word >> 48 < batch {
                // Refilled by another reader, or replaced by a writer: claim as usual.
                let claimed = current.wrappingAdd(Self.claimUnit, ordering: .acquiring).oldValue
                if claimed >> 48 < batch {
                    return Unmanaged<Object>.fromOpaque(Self.address(claimed)).takeRetainedValue()
                }
                word = current.load(ordering: .sequentiallyConsistent)
                continue
            }
            let address = Self.address(word)
            // A new batch for the word, and one reference for this reader.
            RuntimeReferenceCounts.retain(address, count: UInt32(batch + 1))
            let (exchanged, original) = current.compareExchange(
                expected: word, desired: word & (Self.claimUnit - 1), ordering: .sequentiallyConsistent)
            if exchanged { return Unmanaged<Object>.fromOpaque(address).takeRetainedValue() }
            // Someone else refilled or replaced first: undo (the object is still alive, see above).
            RuntimeReferenceCounts.release(address, count: UInt32(batch + 1))
            word = original
        }
    }

    /// The word that publishes `object`: retained once for the word and `batch` times for readers.
    private static func publishing(_ object: Object, batch: UInt64) -> UInt64 {
        let address = Unmanaged.passRetained(object).toOpaque()
        RuntimeReferenceCounts.retain(address, count: UInt32(batch))
        let bits = UInt64(UInt(bitPattern: address))
        precondition(bits < claimUnit, "PublishedReference needs object addresses below 2^48")
        return bits
    }

    /// Releases what a word that is no longer published still owns: its own reference and the
    /// references no reader claimed.
    private static func releaseUnclaimed(_ word: UInt64, batch: UInt64) {
        let unclaimed = batch - min(word >> 48, batch)
        RuntimeReferenceCounts.release(address(word), count: UInt32(unclaimed + 1))
    }

    private static func address(_ word: UInt64) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: UInt(truncatingIfNeeded: word & (claimUnit - 1)))!
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
