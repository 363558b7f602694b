import Synchronization

/// One atomic 64-bit word per flag, holding the resolved value of every Boolean, integer and
/// double flag, so checks read without locking or allocating.
///
/// Writers (who hold the manager's lock) store new words after each resolution; readers load
/// them with relaxed ordering. Each word is independent: a reader that needs several flags to be
/// mutually consistent takes a ``FlagSnapshot`` instead.
///
/// `@unchecked Sendable`: the buffer is allocated once in `init`, never reallocated, freed only
/// in `deinit`, and every access to its elements goes through `Atomic` operations.
@usableFromInline
final class AtomicFlagSlots: @unchecked Sendable {  // safe: see the doc comment
    @usableFromInline
    let words: UnsafeMutablePointer<Atomic<UInt64>>
    let count: Int

    init(count: Int) {
        self.count = count
        words = .allocate(capacity: max(count, 1))
        for index in 0..<max(count, 1) {
            (words + index).initialize(to: Atomic<UInt64>(0))
        }
    }

    deinit {
        words.deinitialize(count: max(count, 1))
        words.deallocate()
    }

    @inlinable
    func word(at index: Int) -> UInt64 {
        words[index].load(ordering: .relaxed)
    }

    func store(_ word: UInt64, at index: Int) {
        words[index].store(word, ordering: .relaxed)
    }

    /// The word for a scalar value: 0 or 1 for Booleans, the bit pattern for numbers, 0 otherwise.
    static func word(for value: FlagValue) -> UInt64 {
        switch value {
        case .bool(let value): value ? 1 : 0
        case .int(let value): UInt64(bitPattern: Int64(value))
        case .double(let value): value.bitPattern
        default: 0
        }
    }
}
