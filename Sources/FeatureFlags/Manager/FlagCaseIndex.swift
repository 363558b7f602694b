/// Maps a flag enum's cases to registry positions without hashing.
///
/// A Swift enum without payloads stores its case as a small integer tag in declaration order.
/// When a registry is built, the tag of every case in `allCases` is read and checked against
/// its position; only when all of them match is the tag used as the index. Otherwise (a
/// hand-written `allCases` in another order, say) a dictionary is used.
///
/// The tag's width is the enum's size, a constant once the check is specialized for the app's
/// enum, so a check tests one optional and reads the tag.
@usableFromInline
struct FlagCaseIndex<Key: FeatureFlagKey>: Sendable {
    /// The positions by case, or `nil` when every case's tag is its position.
    @usableFromInline
    let positions: [Key: Int]?

    init() {
        let cases = Array(Key.allCases)
        let tagsMatch = cases.enumerated().allSatisfy { offset, key in Self.tag(of: key) == offset }
        let size = MemoryLayout<Key>.size
        if tagsMatch && (size == 1 || size == 2 || (size == 0 && cases.count == 1)) {
            positions = nil
        } else {
            positions = Dictionary(cases.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The case's tag: 0 for an enum of one case, the byte or two bytes of a small enum; `nil`
    /// for any other layout.
    @inlinable
    static func tag(of key: Key) -> Int? {
        switch MemoryLayout<Key>.size {
        case 0: 0
        case 1: withUnsafeBytes(of: key) { Int($0.load(as: UInt8.self)) }
        case 2: withUnsafeBytes(of: key) { Int($0.loadUnaligned(as: UInt16.self)) }
        default: nil
        }
    }

    @inlinable
    func index(of key: Key) -> Int {
        if let positions { return positions[key] ?? 0 }
        return Self.tag(of: key) ?? 0
    }
}
