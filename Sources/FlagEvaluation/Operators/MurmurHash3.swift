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

    /// Appends `bytes` to the hashed input; contiguous bytes (a string's UTF-8, an array) are
    /// read a 4-byte block at a time.
    mutating func combine<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in combine(buffer: buffer) }
        if done != nil { return }
        for byte in bytes { combine(byte: byte) }
    }

    private mutating func combine(buffer: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = buffer.count
        while blockBytes != 0, index < count {
            combine(byte: buffer[index])
            index += 1
        }
        while index + 4 <= count {
            let k = UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index + 2]) << 16
                | UInt32(buffer[index + 3]) << 24
            mixBlock(k)
            length &+= 4
            index += 4
        }
        while index < count {
            combine(byte: buffer[index])
            index += 1
        }
    }

    /// Appends one byte.
    mutating func combine(byte: UInt8) {
        block |= UInt32(byte) << (8 * blockBytes)
        blockBytes += 1
        length &+= 1
        if blockBytes == 4 {
            mixBlock(block)
            block = 0
            blockBytes = 0
        }
    }

    private mutating func mixBlock(_ k: UInt32) {
        h ^= Self.mix(k)
        h = (h << 13) | (h >> 19)
        h = h &* 5 &+ 0xE654_6B64
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
