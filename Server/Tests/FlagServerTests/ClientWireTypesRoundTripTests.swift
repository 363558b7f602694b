import FeatureFlags
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagServerClient
import Foundation
import Testing

/// The admin API's client (`FlagServerClient`, which `flags push`, `pull` and `diff` use) keeps its
/// own copies of the definitions it sends and reads. These tests encode with one side and decode
/// with the other, so a field one side drops or names differently fails here.
struct ClientWireTypesRoundTripTests {
    /// A definition with every metadata field set, custom metadata of each scalar kind included.
    static let clientFlag = ServerFlag(
        key: "checkout.v2", type: .float, variants: ["low": .double(0.5), "high": .int(2)],
        metadata: ServerFlag.Metadata(
            displayName: "Checkout", description: "The new checkout", owner: "payments", phase: 4,
            removalTarget: "2027-03-01", requires: ["cart"], conflicts: ["legacy"], sensitive: true,
            custom: ["team": .string("growth"), "x-ticket": .int(12), "x-weight": .double(0.25), "x-review": .bool(true)]),
        defaultVariant: "low")

    @Test
    func aDefinitionTheClientSendsIsTheRecordTheServerReadsAndAnswersBack() throws {
        let sent = try JSONEncoder().encode(Self.clientFlag)
        let record = try JSONDecoder().decode(FlagRecord.self, from: sent)
        #expect(record.key == "checkout.v2" && record.type == .float && record.defaultVariant == "low")
        #expect(record.variants == ["low": .double(0.5), "high": .int(2)])
        #expect(
            record.metadata
                == FlagRecordMetadata(
                    displayName: "Checkout", description: "The new checkout", owner: "payments", phase: 4,
                    removalTarget: "2027-03-01", requires: ["cart"], conflicts: ["legacy"], sensitive: true,
                    custom: ["team": "growth", "x-ticket": 12, "x-weight": .double(0.25), "x-review": true]))
        // What `GET /admin/v1/flags` answers for it reads back as the definition the client sent.
        let answered = try JSONEncoder().encode(record)
        #expect(try JSONDecoder().decode(ServerFlag.self, from: answered) == Self.clientFlag)
    }

    @Test
    func aRecordWithoutOptionalMetadataReadsAsTheClientsDefaults() throws {
        let record = FlagRecord(key: "plain", type: .boolean, variants: ["on": true, "off": false])
        let flag = try JSONDecoder().decode(ServerFlag.self, from: JSONEncoder().encode(record))
        #expect(flag == ServerFlag(key: "plain", type: .boolean, variants: ["on": .bool(true), "off": .bool(false)]))
        #expect(try JSONDecoder().decode(FlagRecord.self, from: JSONEncoder().encode(flag)) == record)
    }

    @Test
    func settingsTheClientSendsAreTheServersSettingsAndBack() throws {
        let sent = ServerFlagSettings(enabled: true, defaultVariant: "high")
        let settings = try JSONDecoder().decode(FlagSettings.self, from: JSONEncoder().encode(sent))
        #expect(settings == FlagSettings(enabled: true, defaultVariant: "high"))
        let answered = FlagSettings(enabled: false, defaultVariant: "low", targeting: ["if": [true, "high", "low"]])
        #expect(try JSONDecoder().decode(ServerFlagSettings.self, from: JSONEncoder().encode(answered)) == ServerFlagSettings(enabled: false, defaultVariant: "low"))
    }

    @Test
    func everyServerTypeNameTheClientKnowsIsOneTheServerWrites() throws {
        for type in FlagType.allCases {
            let flag = try JSONDecoder().decode(ServerFlag.ValueType.self, from: JSONEncoder().encode(type))
            #expect(flag.rawValue == type.rawValue)
        }
    }
}
