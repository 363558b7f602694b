import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Replays flagd's evaluator test kit through a real server on loopback: the kit's flag file goes
/// in through the admin import endpoint (flagd format), and every case is evaluated over OFREP,
/// read the way an OpenFeature OFREP provider reads the answer (no value: the code default; an
/// error code: the code default with reason `ERROR`; a value of another type: `TYPE_MISMATCH`).
///
/// Cases tagged `fractional-v1` run against a server started with legacy bucketing, as the
/// library's own replay runs them with a legacy evaluator. Skipped when the kit is not checked out
/// beside the repository; under CI (`CI` set) it runs and fails instead.
///
/// Two of the kit's flags are replaced by the versions flagd's own test files use (the flagd
/// schemas' `examples/full.json`), whose last `if` branch returns `"fail"`, a name that is not one
/// of their variants, behind a condition no context meets: flagd loads such a file, and so must
/// the server's import (with a warning), or the whole import is refused.
@Suite(ConformanceMaterial.required("flagd-evaluator", "flagd-schemas"))
struct FlagdKitReplayTests {
    /// The one flag of the kit the server refuses: its rule names an evaluator that does not
    /// exist (flagd loads it and fails each evaluation with `PARSE_ERROR`).
    static let refusedFlag = "ref-to-nonexistent-evaluator-flag"

    /// The flags taken from flagd's test files, with the branch that returns `"fail"`.
    static let unreachableBranchFlags = ["equal-greater-lesser-version-flag", "starts-ends-flag"]

    @Test func theKitIsPresent() {
        ConformanceMaterial.current.requirePresent("flagd-evaluator")
    }

    @Test func importRefusesOnlyTheRuleNamingAMissingEvaluatorAndChangesNothing() async throws {
        let document = try FlagdTestKit.flagFile()
        try await TestServer.with { server in
            let reply = try await server.request(
                .POST, "/admin/v1/environments/production/import?format=flagd", token: server.adminToken, body: document)
            #expect(reply.status == 422)
            let problems = reply.json?["error"]?["problems"]?.arrayValue ?? []
            #expect(problems.map { $0["key"] } == [.string(Self.refusedFlag)])
            #expect(problems.first?["field"] == "targeting")
            #expect(problems.first?["problem"]?.stringValue?.contains("nonexistent_evaluator") == true)
            let flags = try await server.request(.GET, "/admin/v1/flags", token: server.adminToken)
            #expect(flags.json == .array([]))
        }
    }

    @Test func theKitPassesOverOFREPAsItDoesInTheLibrary() async throws {
        let cases = try FlagdTestKit.cases()
        #expect(cases.count == 140, "the test kit should expand to 140 cases")
        let document = try Self.importableKit()
        var tally = try ReplayTally(name: "flagd evaluator test kit over OFREP", expectedFailures: "flagd-kit-over-ofrep.txt")
        for bucketing in [FractionalBucketing.current, .legacy] {
            let selected = cases.filter { $0.tags.contains("fractional-v1") == (bucketing == .legacy) }
            try await TestServer.with(fractionalBucketing: bucketing) { server in
                let imported = try await server.request(
                    .POST, "/admin/v1/environments/production/import?format=flagd", token: server.adminToken, body: document)
                try #require(imported.status == 200, "the import failed: \(imported.body)")
                // Imported, each unreachable name a warning naming the flag and the name.
                let warnings = imported.json?["warnings"]?.arrayValue ?? []
                #expect(warnings.compactMap { $0["key"]?.stringValue } == Self.unreachableBranchFlags)
                #expect(warnings.allSatisfy { $0["problem"]?.stringValue?.hasPrefix(#"returns "fail""#) == true }, "\(warnings)")
                let token = try await server.token(.client, environment: "production")
                for testCase in selected {
                    var runner = OFREPScenario(server: server, token: token)
                    for step in testCase.steps { try await runner.perform(step) }
                    tally.record(testCase.id, problems: runner.problems, name: testCase.name)
                }
            }
        }
        tally.finish()
    }

    /// The kit's flag file without ``refusedFlag``, with ``unreachableBranchFlags`` as flagd's
    /// test files write them.
    static func importableKit() throws -> String {
        var root = try JSONValue(parsing: FlagdTestKit.flagFile()).objectValue ?? [:]
        var flags = root["flags"]?.objectValue ?? [:]
        flags[refusedFlag] = nil
        let examples = try JSONValue(parsing: String(
            contentsOf: ConformanceMaterial.current.url("flagd-schemas").appendingPathComponent("json/examples/full.json"),
            encoding: .utf8))
        for key in unreachableBranchFlags {
            let flag = try #require(examples["flags"]?[key], "flagd-schemas' examples/full.json has no flag \(key)")
            #expect(flag.serialized().contains(#""fail""#), "\(key) no longer returns \"fail\" in flagd's test files")
            flags[key] = flag
        }
        root["flags"] = .object(flags)
        return JSONValue.object(root).serialized()
    }
}

/// One case of the kit run over OFREP: the steps build a context, evaluate the flag with
/// `POST /ofrep/v1/evaluate/flags/{key}`, and check the provider-side result.
private struct OFREPScenario {
    let server: TestServer
    let token: String
    var key = ""
    var type = ""
    var fallback: JSONValue = .null
    var context: [String: JSONValue] = [:]
    var result: (value: JSONValue, reason: String, errorCode: String?, metadata: [String: JSONValue])?
    var problems: [String] = []

    init(server: TestServer, token: String) {
        self.server = server
        self.token = token
    }

    mutating func perform(_ step: FlagdTestKit.Step) async throws {
        let (template, arguments) = FlagdTestKit.template(of: step.text)
        switch template {
        case "an evaluator":
            break
        case _ where template.hasPrefix("a ") && template.hasSuffix("-flag with key {} and a fallback value {}"):
            type = String(template.dropFirst(2).prefix { $0 != "-" })
            key = arguments[0]
            guard let value = FlagdTestKit.value(arguments[1], type: type) else {
                return problems.append("cannot read the fallback \"\(arguments[1])\" as \(type)")
            }
            fallback = value
        case "a context containing a key {}, with type {} and with value {}":
            guard let value = FlagdTestKit.value(arguments[2], type: arguments[1]) else {
                return problems.append("cannot read the context value \"\(arguments[2])\" as \(arguments[1])")
            }
            context[arguments[0]] = value
        case "a context containing a nested property with outer key {} and inner key {}, with value {}":
            var outer = context[arguments[0]]?.objectValue ?? [:]
            outer[arguments[1]] = .string(arguments[2])
            context[arguments[0]] = .object(outer)
        case "a context containing a targeting key with value {}":
            context["targetingKey"] = .string(arguments[0])
        case "the flag was evaluated with details":
            result = try await evaluate()
        case "the resolved details value should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            guard let expected = FlagdTestKit.value(arguments[0], type: type) else {
                return problems.append("cannot read the expected value \"\(arguments[0])\" as \(type)")
            }
            if result.value != expected || result.value.typeName != expected.typeName {
                problems.append("value: expected \(expected), got \(result.value)")
            }
        case "the reason should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if result.reason != arguments[0] { problems.append("reason: expected \(arguments[0]), got \(result.reason)") }
        case "the error-code should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if (result.errorCode ?? "") != arguments[0] {
                problems.append("error code: expected \(arguments[0]), got \(result.errorCode ?? "none")")
            }
        case "the resolved metadata should contain":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            for row in step.table.dropFirst() {
                guard row.count == 3, let expected = FlagdTestKit.value(row[2], type: row[1]) else {
                    problems.append("cannot read the metadata row \(row)")
                    continue
                }
                let actual = result.metadata[row[0]].map { row[1] == "Float" ? JSONValue.double($0.doubleValue ?? .nan) : $0 }
                if actual != expected { problems.append("metadata \(row[0]): expected \(expected), got \(actual.map(\.description) ?? "nothing")") }
            }
        case "the resolved metadata is empty":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if !result.metadata.isEmpty { problems.append("metadata: expected none, got \(JSONValue.object(result.metadata))") }
        default:
            problems.append("unsupported step \"\(step.text)\"")
        }
    }

    /// Evaluates over OFREP and reads the answer as a provider does.
    func evaluate() async throws -> (value: JSONValue, reason: String, errorCode: String?, metadata: [String: JSONValue]) {
        let body = JSONValue.object(["context": .object(context)]).serialized()
        let reply = try await server.request(.POST, "/ofrep/v1/evaluate/flags/\(key)", token: token, body: body)
        guard let json = reply.json else {
            return (fallback, "ERROR", "GENERAL", [:])
        }
        let metadata = json["metadata"]?.objectValue ?? [:]
        if let code = json["errorCode"]?.stringValue {
            return (fallback, "ERROR", code, metadata)
        }
        let reason = json["reason"]?.stringValue ?? "UNKNOWN"
        guard reply.status == 200, let value = json["value"] else {
            return (fallback, reason, nil, metadata)
        }
        let typed: JSONValue? = switch (type, value) {
        case ("Boolean", .bool), ("String", .string), ("Object", .object), ("Integer", .int): value
        case ("Float", .int(let number)): .double(Double(number))
        case ("Float", .double): value
        default: nil
        }
        guard let typed else { return (fallback, "ERROR", "TYPE_MISMATCH", metadata) }
        return (typed, reason, nil, metadata)
    }
}
