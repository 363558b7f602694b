/// How `fractional` turns a bucketing key's hash into a bucket.
///
/// Both hash the key with MurmurHash3 (x86, 32-bit, seed 0); they differ in how the hash picks a
/// bucket, so the same key can land in different buckets. Use ``current`` unless you must keep
/// assignments made by an older flagd.
public enum FractionalBucketing: String, Sendable, Hashable, CaseIterable {
    /// flagd's integer bucketing ("v2"): `(UInt32(hash) * totalWeight) >> 32` against the
    /// cumulative weights. Exact for every weight sum up to `Int32.max`.
    case current
    /// flagd's original floating-point bucketing ("v1"): `abs(Int32(hash)) / Int32.max * 100`
    /// against cumulative percentages.
    case legacy
}
