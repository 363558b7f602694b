/// Maps a flag enum's cases to registry positions without hashing.
///
/// A Swift enum without payloads stores its case as a small integer tag in declaration order.
/// When a registry is built, the tag of every case in `allCases` is read and checked against
/// its position; only when all of them match is the tag used as the index. Otherwise (a
/// hand-written `allCases` in another order, say) a dictionary is used.
@usableFromInline
struct FlagCaseIndex<Key: FeatureFlagKey>: Sendable {
    @usableFromInline
    enum Strategy: Sendable {
        case single
        case tag8
        case tag16
        case lookup([Key: Int])
    }

    @usableFromInline
    let strategy: Strategy

    init() {
        let cases = Array(Key.allCases)
        func tagsMatch(_ tag: (Key) -> Int) -> Bool {
            cases.enumerated().allSatisfy { offset, key in tag(key) == offset }
        }
        switch MemoryLayout<Key>.size {
        case 0 where cases.count == 1:
            strategy = .single
        case 1 where tagsMatch({ key in withUnsafeBytes(of: key) { Int($0.load(as: UInt8.self)) } }):
            strategy = .tag8
        case 2 where tagsMatch({ key in withUnsafeBytes(of: key) { Int($0.loadUnaligned(as: UInt16.self)) } }):
            strategy = .tag16
        default:
            strategy = .lookup(Dictionary(cases.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    @inlinable
    func index(of key: Key) -> Int {
        switch strategy {
        case .single: 0
        case .tag8: withUnsafeBytes(of: key) { Int($0.load(as: UInt8.self)) }
        case .tag16: withUnsafeBytes(of: key) { Int($0.loadUnaligned(as: UInt16.self)) }
        case .lookup(let positions): positions[key] ?? 0
        }
    }
}
