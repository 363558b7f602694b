/// How `fractional` turns a subject into a bucket.
///
/// All three hash with MurmurHash3 (x86, 32-bit, seed 0). They differ in what they hash and how
/// the hash picks a bucket, so the same subject can land in different buckets: pick the one that
/// matches the flagd your other services run. See <doc:FractionalBucketingVersions> for which flagd
/// versions each matches.
///
/// ```swift
/// let evaluator = FlagEvaluator(definitions: definitions, bucketing: .v3)
/// ```
public enum FractionalBucketing: String, Sendable, Hashable, CaseIterable {
    /// flagd's integer bucketing ("v2", the default): hashes the bucketing string's UTF-8 bytes
    /// (flag key then targeting key for the shorthand) and picks
    /// `(UInt32(hash) * totalWeight) >> 32` against the cumulative weights. Exact for every
    /// weight sum up to `Int32.max`.
    case current
    /// flagd's original floating-point bucketing ("v1"): hashes as ``current`` and picks
    /// `abs(Int32(hash)) / Int32.max * 100` against cumulative percentages.
    case legacy
    /// flagd's newest bucketing ("v3"): hashes the bucketing value encoded as deterministic CBOR
    /// (RFC 8949 core deterministic encoding), so it may be any JSON value, not only a string;
    /// the shorthand hashes the array `[flagKey, targetingKey]` (an empty targeting key gives
    /// `null`, as in flagd). Picks the bucket as ``current``. Checked against flagd's Python core
    /// (openfeature-flagd-core 2.0.0) on 1,108 rules and subjects.
    case v3
}
