/// What a check does besides reading its value: the meaning of the read mark each flag's slot
/// holds beside its value (see ``AtomicFlagSlots``), and the rows of read counters.
///
/// A check loads its flag's mark (from the same slot as the value):
///
/// - `0`: nothing to record (no ``FlagEventRecorder`` configured). A check costs that load and
///   a branch.
/// - positive: count the read. The mark is the byte offset of the flag's row-0 counter from the
///   slots; the check adds the calling thread's row offset (``rowOffset()``) and increments the
///   counter there: no call, no lock, no atomic read-modify-write.
/// - negative (``slow`` set): something more than counting, out of line
///   (`FlagEngine.noteMarkedRead(_:)`): the first read of a newly published remote value (an
///   exposure to record: the one thread that clears the bit records it), or a read before
///   configuration (a warning, once per flag). The other bits are the counter's offset when
///   reads are counted, zero otherwise.
///
/// Counting writes no memory another thread writes, as long as the two count in different rows:
/// a read counts in the row picked by a hash of its thread's stack address, and every row of a
/// group of 8 flags is a cache line of its own.
@usableFromInline
enum FlagReadMarks {
    /// The mark's bit that sends a read out of line.
    @usableFromInline
    static let slow: UInt64 = 1 << 63

    /// Rows of counters.
    @usableFromInline
    static let rows = 16
    /// Bytes from one row of counters to the next: a cache line.
    @usableFromInline
    static let rowBytes = 64
    /// Bytes of the rows of one group of 8 flags.
    static let groupBytes = rows * rowBytes

    /// The calling thread's row, as a byte offset (a multiple of ``rowBytes`` below
    /// ``rows`` × ``rowBytes``).
    ///
    /// Threads' stacks are at least 64 KiB apart; a multiplicative hash of the address above
    /// those 16 bits spreads them over the rows (consecutive stacks land in different rows). In
    /// a loop the compiler computes it once.
    @inlinable
    @inline(__always)
    static func rowOffset() -> Int {
        var probe: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &probe) { UInt64(UInt(bitPattern: $0)) }
        // The top 4 bits of the hash pick the row; shifted down to bits 6–9, a byte offset.
        return Int(truncatingIfNeeded: ((address >> 16) &* 0x9E37_79B9_7F4A_7C15) >> 54) & 0x3C0
    }
}
