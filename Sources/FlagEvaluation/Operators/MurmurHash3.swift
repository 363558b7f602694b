/// MurmurHash3, x86 32-bit variant, as flagd uses it to bucket `fractional` rollouts.
enum MurmurHash3 {
    /// The 32-bit hash of `bytes` (the UTF-8 of the bucketing key in flagd) with `seed`.
    static func hash32<Bytes: Sequence<UInt8>>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xCC9E_2D51
        let c2: UInt32 = 0x1B87_3593
        var h = seed
        var length: UInt32 = 0
        var block: UInt32 = 0
        var blockBytes = 0

        func mix(_ k: UInt32) -> UInt32 {
            var k = k &* c1
            k = (k << 15) | (k >> 17)
            return k &* c2
        }

        for byte in bytes {
            block |= UInt32(byte) << (8 * UInt32(blockBytes))
            blockBytes += 1
            length &+= 1
            if blockBytes == 4 {
                h ^= mix(block)
                h = (h << 13) | (h >> 19)
                h = h &* 5 &+ 0xE654_6B64
                block = 0
                blockBytes = 0
            }
        }
        if blockBytes > 0 {
            h ^= mix(block)
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
