import Testing

@testable import FeatureFlags

/// An enum whose `allCases` is not in declaration order: its tags are not registry positions.
enum ReorderedFlag: String, CaseIterable, FeatureFlagKey {
    case first = "first"
    case second = "second"
    case third = "third"

    static var allCases: [ReorderedFlag] { [.third, .first, .second] }

    var metadata: FlagMetadata<ReorderedFlag> {
        switch self {
        case .first: .init("First", default: true)
        case .second: .init("Second")
        case .third: .init("Third", default: true)
        }
    }
}

enum OnlyFlag: String, CaseIterable, FeatureFlagKey {
    case only = "only"

    var metadata: FlagMetadata<OnlyFlag> { .init("Only", default: true) }
}

/// Case-to-position mapping: the tag when it is the position, a dictionary otherwise.
struct FlagCaseIndexTests {
    @Test func casesInDeclarationOrderUseTheirTags() {
        #expect(FlagCaseIndex<TestFlag>().positions == nil)
        #expect(FlagCaseIndex<OnlyFlag>().positions == nil)
        let index = FlagCaseIndex<TestFlag>()
        for (position, flag) in TestFlag.allCases.enumerated() { #expect(index.index(of: flag) == position) }
        #expect(FlagCaseIndex<OnlyFlag>().index(of: .only) == 0)
    }

    @Test func casesInAnotherOrderAreLookedUp() {
        let index = FlagCaseIndex<ReorderedFlag>()
        #expect(index.positions != nil)
        #expect(ReorderedFlag.allCases.map(index.index(of:)) == [0, 1, 2])
    }

    @Test func checksReadTheirOwnFlagWhateverTheMapping() {
        let flags = FeatureFlagManager<ReorderedFlag>(buildConfiguration: .debug)
        flags.setOverride(.third, to: false)
        #expect(ReorderedFlag.allCases.map { flags.isEnabled($0) } == [false, true, false])
        #expect(ReorderedFlag.allCases.map { flags.untracked.isEnabled($0) } == [false, true, false])
        #expect(ReorderedFlag.allCases.map { flags.engine.value(forKey: $0.rawValue) } == [false, true, false].map(FlagValue.bool))
        let only = FeatureFlagManager<OnlyFlag>(buildConfiguration: .debug)
        #expect(only.isEnabled(.only))
        only.setOverride(.only, to: false)
        #expect(!only.untracked.isEnabled(.only))
    }
}
