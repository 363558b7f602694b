import Synchronization

/// An immutable object published for lock-free reads: readers retain (or borrow) the current
/// object without locking; a writer swaps in a new one and frees the old one once no reader
/// can still be using it. Nothing is ever stored in a pointer's bits, and the writer never
/// waits for readers.
///
/// ```swift
/// let published = PublishedReference(table)
/// let table = published.load()                      // retained: one compare-and-exchange
/// let count = published.withCurrent { $0.count }   // borrowed: no lock, no retain
/// published.replace(with: newTable)               // never waits for readers
/// ```
///
/// **The published word holds no address.** It holds a *generation* (high 32 bits), counting
/// the objects published so far, and a count of *claims* (low 32 bits). The object of
/// generation `g` is kept, as an untouched pointer, in slot `g % 2`. Pointers keep every bit
/// the allocator gave them: with hardware memory tagging (iOS 26's Enhanced Security on A19 and
/// M5 devices) the top byte of a pointer holds its allocation's tag, and stripping or reusing
/// those bits would trap or fault.
///
/// **Retained reads (`load`) claim a reference paid in advance.** A writer retains a new object
/// `batch` extra times (one call, see ``RuntimeReferenceCounts``) before publishing it. A reader
/// reads the word, then the slot of its generation, then claims one reference by adding one
/// to the word's claims with a compare-and-exchange. When that succeeds, the word was still at
/// the generation whose slot it read (the slot of generation `g` is reused only by generation
/// `g + 2`, after the word moved on), so the reader holds the right object, and owns one of its
/// prepaid references: it never retains, and never touches the object before owning a
/// reference. When a writer replaces the object, the exchange returns the claims made, and the
/// references nobody claimed (and the word's own one) are released when the object is
/// reclaimed (below). A reader that finds every prepaid reference claimed refills under the
/// epoch protection below: it retains the object `batch + 1` times and resets the claims with a
/// compare-and-exchange (or undoes its retains if another reader or a writer got there first).
///
/// **Borrowed reads (`withCurrent`) announce themselves.** A reader announces itself in a
/// counter of the current *epoch parity* (one counter per parity in each of a few stripes, each
/// on its own cache line, picked by the reader's stack address, so two threads rarely share
/// one), checks that the epoch did not move meanwhile (else it retries), and only then reads the
/// word and the slot. Readers never wait and never lock.
///
/// **Writers retire; nobody waits.** A writer publishes the new object and *retires* the old
/// one, tagged with the current epoch `e`. The epoch advances from `e` to `e + 1` only when
/// every counter of parity `e - 1` reads zero, so while a reader announced in epoch `e` is
/// inside, the epoch cannot pass `e + 1`. An object retired in epoch `r` is therefore unused
/// once the epoch reaches `r + 2`: every reader that could have read it has left. The writer
/// advances the epoch as far as the counters allow and frees what is unused, then returns; it
/// never spins or sleeps, so a high-priority writer (the main thread setting an override) can
/// never wait on a preempted low-priority reader. A retired object that readers still use is
/// reclaimed by whoever next finds its readers gone: the next writer, or a reader leaving its
/// announcement while a reclamation is pending (with a try-lock: a reader never blocks).
///
/// `@unchecked Sendable`: the object is reached only through `Atomic` operations, released only
/// when the protocols above show that no reader can still take or borrow it; the writers' state
/// is behind a lock (``Locked``: a pthread mutex, which the thread sanitizer sees, unlike
/// `Synchronization.Mutex`'s futex on Linux); and `Object` itself is `Sendable`.
package final class PublishedReference<Object: AnyObject & Sendable>: @unchecked Sendable {  // safe: see above
    /// The generation in the high 32 bits, the claims made on its prepaid references in the low
    /// 32 bits.
    private let word: Atomic<UInt64>
    /// The objects of the last two generations: slot `generation % 2`, as the pointer's full
    /// bit pattern.
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    private let epoch = Atomic<Int>(0)
    /// `2 * stripes` reader counters, `stride` words apart: counter `parity * stripes + stripe`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Whether retired objects wait to be reclaimed: read by readers leaving an announcement.
    private let reclamationPending = Atomic<Bool>(false)
    /// The writers' side: the current object and the retired ones.
    private let writers: Locked<WriterState>

    /// Addresses are kept as bit patterns (`Sendable`, unlike pointers), with every bit intact.
    private struct Retired {
        let address: UInt
        /// The references the publication still owns: its own and the unclaimed prepaid ones.
        let references: UInt32
        /// The epoch in which it was replaced.
        let epoch: Int
    }

    private struct WriterState {
        var generation: UInt64 = 0
        var current: UInt
        var retired: [Retired] = []
    }

    private static var stripes: Int { 8 }
    /// 128 bytes: a cache line, or a pair of them on CPUs that fetch lines in pairs.
    private static var stride: Int { 16 }
    private static var claimMask: UInt64 { 0xFFFF_FFFF }
    /// References paid in advance per refill; claims never exceed it.
    private let batch: UInt64

    /// Publishes `object`.
    ///
    /// - Parameter batch: references paid in advance per refill, 1...16,384 (small values only
    ///   to exercise refills in tests). Without the runtime's batch calls every prepaid
    ///   reference costs a retain of its own, so the default batch is small there.
    package init(_ object: Object, batch: Int = RuntimeReferenceCounts.isBatched ? 1 << 14 : 64) {
        precondition((1...(1 << 14)).contains(batch), "PublishedReference batch must be 1...16384")
        self.batch = UInt64(batch)
        let address = Self.publishing(object, batch: UInt64(batch))
        word = Atomic(0)
        slots = .allocate(capacity: 2)
        slots.initialize(to: Atomic<UInt>(UInt(bitPattern: address)))
        (slots + 1).initialize(to: Atomic<UInt>(0))
        writers = Locked(WriterState(current: UInt(bitPattern: address)))
        let words = 2 * Self.stripes * Self.stride
        counters = .allocate(capacity: words)
        for index in 0..<words { (counters + index).initialize(to: Atomic<Int>(0)) }
    }

    deinit {
        // Nothing can read any more: release what the publication and the retired objects own.
        let claims = word.load(ordering: .acquiring) & Self.claimMask
        writers.withLock { state in
            Self.release(state.current, count: UInt32(batch - claims + 1))
            for retired in state.retired { Self.release(retired.address, count: retired.references) }
        }
        slots.deinitialize(count: 2)
        slots.deallocate()
        counters.deinitialize(count: 2 * Self.stripes * Self.stride)
        counters.deallocate()
    }

    /// Runs `body` with the current object, borrowed for the duration of the call. `body` must be
    /// short and must not replace the object.
    package func withCurrent<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        let counter = enter()
        defer { leave(counter) }
        // Whatever slot this reads holds an object published after this reader announced
        // itself or current then: none is reclaimed before the reader leaves.
        let current = word.load(ordering: .sequentiallyConsistent)
        return try Unmanaged<Object>.fromOpaque(object(of: current))._withUnsafeGuaranteedRef(body)
    }

    /// The current object, retained: a compare-and-exchange on the fast path.
    @inline(__always)
    package func load() -> Object {
        var current = word.load(ordering: .acquiring)
        while current & Self.claimMask < batch {
            // Read before claiming, used only once the claim shows the generation unchanged.
            let address = object(of: current)
            let (claimed, seen) = word.weakCompareExchange(
                expected: current, desired: current + 1, successOrdering: .acquiring, failureOrdering: .acquiring)
            // Sound: the word was still at `current`'s generation, so `address` is its object,
            // and this claim owns one of the references retained in advance for it.
            if claimed { return Unmanaged<Object>.fromOpaque(address).takeRetainedValue() }
            current = seen
        }
        return loadRefilling()
    }

    /// Publishes `object`, retires the previous one and reclaims whatever no reader can still
    /// use. Never waits for readers: a retired object that readers still use is reclaimed
    /// later, by the next writer or by the last of those readers to leave.
    package func replace(with object: Object) {
        let address = Self.publishing(object, batch: batch)
        writers.withLock { state in
            state.generation &+= 1
            // The slot of generation `g + 1` last held generation `g - 1`, retired already.
            slots[Int(state.generation & 1)].store(UInt(bitPattern: address), ordering: .releasing)
            let old = word.exchange(state.generation << 32, ordering: .sequentiallyConsistent)
            let unclaimed = batch - min(old & Self.claimMask, batch)
            state.retired.append(
                Retired(
                    address: state.current, references: UInt32(unclaimed + 1),
                    epoch: epoch.load(ordering: .sequentiallyConsistent)))
            state.current = UInt(bitPattern: address)
            // Before looking at the counters, so that a reader leaving after the look sees it.
            reclamationPending.store(true, ordering: .sequentiallyConsistent)
        }
        reclaim()
    }

    /// The slow path of ``load()``, once per `batch` loads: pays the next batch in advance.
    @inline(never)
    private func loadRefilling() -> Object {
        let counter = enter()
        defer { leave(counter) }
        // Every object read from here on stays allocated until this reader leaves.
        var current = word.load(ordering: .sequentiallyConsistent)
        while true {
            let address = object(of: current)
            let claims = current & Self.claimMask
            if claims < batch {
                // Refilled by another reader, or replaced by a writer: claim as usual.
                let (claimed, seen) = word.compareExchange(
                    expected: current, desired: current + 1, ordering: .sequentiallyConsistent)
                if claimed { return Unmanaged<Object>.fromOpaque(address).takeRetainedValue() }
                current = seen
                continue
            }
            // A new batch for the word, and one reference for this reader.
            RuntimeReferenceCounts.retain(address, count: UInt32(batch + 1))
            let (exchanged, seen) = word.compareExchange(
                expected: current, desired: current & ~Self.claimMask, ordering: .sequentiallyConsistent)
            if exchanged { return Unmanaged<Object>.fromOpaque(address).takeRetainedValue() }
            // Someone else refilled or replaced first: undo (the object is still alive, see above).
            RuntimeReferenceCounts.release(address, count: UInt32(batch + 1))
            current = seen
        }
    }

    /// The object published with `word`'s generation (or, for a reader that lags two
    /// generations behind, a newer one, which its claim will then refuse).
    @inline(__always)
    private func object(of word: UInt64) -> UnsafeMutableRawPointer {
        let bits = slots[Int((word >> 32) & 1)].load(ordering: .acquiring)
        // Sound: a slot is written before the word publishes its generation, and never cleared.
        return UnsafeMutableRawPointer(bitPattern: bits).unsafelyUnwrapped
    }

    /// Retains `object` once for the word and `batch` times for readers; returns its address.
    private static func publishing(_ object: Object, batch: UInt64) -> UnsafeMutableRawPointer {
        let address = Unmanaged.passRetained(object).toOpaque()
        RuntimeReferenceCounts.retain(address, count: UInt32(batch))
        return address
    }

    /// The published word (generation and claims), for tests of its layout.
    package var wordForTesting: UInt64 { word.load(ordering: .acquiring) }

    /// Releases `count` references the publication owns on the object at `address`.
    private static func release(_ address: UInt, count: UInt32) {
        RuntimeReferenceCounts.release(UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped, count: count)
    }

    // MARK: - Announcements and reclamation

    /// Announces a reader in the current epoch's counter of its stripe; returns that counter.
    @inline(__always)
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

    /// Withdraws an announcement; reclaims retired objects when some wait for it.
    @inline(__always)
    private func leave(_ counter: UnsafeMutablePointer<Atomic<Int>>) {
        counter.pointee.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        if reclamationPending.load(ordering: .sequentiallyConsistent) { reclaim() }
    }

    /// Whether no reader is announced in `parity`'s counters.
    private func isDrained(parity: Int) -> Bool {
        (0..<Self.stripes).allSatisfy { stripe in
            counters[(parity * Self.stripes + stripe) * Self.stride].load(ordering: .sequentiallyConsistent) == 0
        }
    }

    /// Advances the epoch as far as the readers allow and releases the retired objects no reader
    /// can use. Never blocks: when another thread holds the writers' lock, that thread looks
    /// again after unlocking.
    private func reclaim() {
        while reclamationPending.load(ordering: .sequentiallyConsistent) {
            let outcome = writers.withLockIfAvailable { state -> (unused: [Retired], stuck: Bool) in
                var now = epoch.load(ordering: .sequentiallyConsistent)
                // Two advances at most: an object retired now is unused at `now + 2`.
                for _ in 0..<2 where isDrained(parity: (now - 1) & 1) {
                    now += 1
                    epoch.store(now, ordering: .sequentiallyConsistent)
                }
                let unused = state.retired.filter { $0.epoch + 2 <= now }
                state.retired.removeAll { $0.epoch + 2 <= now }
                reclamationPending.store(!state.retired.isEmpty, ordering: .sequentiallyConsistent)
                return (unused, !state.retired.isEmpty && !isDrained(parity: (now - 1) & 1))
            }
            guard let outcome else { return }  // the holder looks again after unlocking
            for retired in outcome.unused { Self.release(retired.address, count: retired.references) }
            // Readers still inside leave later and find the reclamation pending; look again only
            // if they may have left while the lock was held.
            if outcome.stuck && !isDrained(parity: (epoch.load(ordering: .sequentiallyConsistent) - 1) & 1) { return }
        }
    }
}
