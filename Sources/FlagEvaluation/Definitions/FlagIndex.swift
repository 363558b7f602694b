/// The flags of a ``FlagDefinitions`` by key, for the evaluation path: an open-addressed table
/// keyed by a cheap hash of the key's UTF-8 bytes, so finding a flag costs a short loop over the
/// bytes and one string comparison instead of a seeded `Hasher` run and a `Dictionary` probe.
///
/// Built once per load; immutable afterwards. The table is at least twice the number of flags,
/// so a probe sequence is short whatever key is asked for.
struct FlagIndex: Sendable {
    private final class Storage: Sendable {
        /// Per slot: the index in `flags` plus one, 0 for an empty slot.
        let slots: [Int32]
        /// Per slot: the full hash of the key stored there (compared before the key itself).
        let hashes: [UInt64]
        let keys: [String]
        let flags: [DefinedFlag]
        let mask: Int

        init(slots: [Int32], hashes: [UInt64], keys: [String], flags: [DefinedFlag], mask: Int) {
            self.slots = slots
            self.hashes = hashes
            self.keys = keys
            self.flags = flags
            self.mask = mask
        }
    }

    private let storage: Storage

    init(_ flags: [String: DefinedFlag]) {
        var capacity = 8
        while capacity < flags.count * 2 { capacity *= 2 }
        let mask = capacity - 1
        var slots = [Int32](repeating: 0, count: capacity)
        var hashes = [UInt64](repeating: 0, count: capacity)
        var keys: [String] = []
        var values: [DefinedFlag] = []
        keys.reserveCapacity(flags.count)
        values.reserveCapacity(flags.count)
        for (key, flag) in flags {
            let hash = Self.hash(key)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            keys.append(key)
            values.append(flag)
            slots[slot] = Int32(keys.count)
            hashes[slot] = hash
        }
        storage = Storage(slots: slots, hashes: hashes, keys: keys, flags: values, mask: mask)
    }

    /// The flag stored under exactly `key`'s UTF-8 bytes, if any. A key written with another
    /// Unicode normalization than the stored one is not found here (a `Dictionary` finds it: see
    /// ``FlagDefinitions/flag(_:)``).
    func flag(_ key: String) -> DefinedFlag? {
        let hash = Self.hash(key)
        let storage = storage
        let mask = storage.mask
        var slot = Int(truncatingIfNeeded: hash) & mask
        return storage.slots.withUnsafeBufferPointer { slots in
            storage.hashes.withUnsafeBufferPointer { hashes in
                while true {
                    let entry = Int(slots[slot])
                    if entry == 0 { return nil }
                    if hashes[slot] == hash, storage.keys[entry - 1] == key { return storage.flags[entry - 1] }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// The UTF-8 bytes folded eight at a time (multiply and rotate, as in FNV), then a final mix
    /// so the low bits (the slot) depend on every byte. Not seeded: the keys in the table come
    /// from the loaded definitions, and a lookup of any other key ends at the first empty slot
    /// of a table at most half full.
    static func hash(_ key: String) -> UInt64 {
        if let hash = key.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return hash
        }
        // Not contiguous (a bridged string): the same hash of a copy.
        return Array(key.utf8).withUnsafeBytes { hash($0) }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = fold(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = fold(hash, tail ^ UInt64(bytes.count) << 56)
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }

    @inline(__always)
    private static func fold(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x0000_0100_0000_01b3
        return (mixed << 29) | (mixed >> 35)
    }
}
