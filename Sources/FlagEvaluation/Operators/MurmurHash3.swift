/// MurmurHash3, x86 32-bit variant, as flagd uses it to bucket `fractional` rollouts.
///
/// Bytes are fed in pieces, so that a key made of two strings (the flag key then the targeting
/// key) is hashed without first being concatenated into a new string:
///
/// ```swift
/// var hasher = MurmurHash3()
/// hasher.combine(flagKey.utf8)
/// hasher.combine(targetingKey.utf8)
/// let hash = hasher.finalize()
/// ```
struct MurmurHash3 {
    private static let c1: UInt32 = 0xCC9E_2D51
    private static let c2: UInt32 = 0x1B87_3593

    private var h: UInt32
    private var length: UInt32 = 0
    private var block: UInt32 = 0
    private var blockBytes: UInt32 = 0

    init(seed: UInt32 = 0) {
        h = seed
    }

    private static func mix(_ k: UInt32) -> UInt32 {
        var k = k &* c1
        k = (k << 15) | (k >> 17)
        return k &* c2
    }

    /// Appends `bytes` to the hashed input.
    mutating func combine<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            block |= UInt32(byte) << (8 * blockBytes)
            blockBytes += 1
            length &+= 1
            if blockBytes == 4 {
                h ^= Self.mix(block)
                h = (h << 13) | (h >> 19)
                h = h &* 5 &+ 0xE654_6B64
                block = 0
                blockBytes = 0
            }
        }
    }

    /// The hash of everything combined so far.
    func finalize() -> UInt32 {
        var h = h
        if blockBytes > 0 {
            h ^= Self.mix(block)
        }
        h ^= length
        h ^= h >> 16
        h = h &* 0x85EB_CA6B
        h ^= h >> 13
        h = h &* 0xC2B2_AE35
        h ^= h >> 16
        return h
    }
}
