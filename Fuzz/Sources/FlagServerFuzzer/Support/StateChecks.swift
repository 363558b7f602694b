@_spi(Fuzzing) import FlagServer
import FlagEvaluation
import Foundation

/// Invariants shared by the targets: how a refusal reads, and what an accepted state must do.
enum StateChecks {
    /// An accepted state is valid, and `environment` exported then imported as `format` gives it
    /// back: imported into the state itself it changes nothing, imported into an empty
    /// environment it gives the same flags, settings and segments. (One environment and format
    /// per input: each import compiles every rule, and the input picks which.)
    static func checkAccepted(_ state: ServerState, environment: String, format: String, after what: String) {
        let problems = StateValidator.problems(in: state)
        Invariant.require(problems.isEmpty, "\(what) was accepted, but the state has problems: \(problems)")
        guard state.environments[environment] != nil else { return }
        guard let document = RequestDecoders.export(state, environment: environment) else {
            Invariant.fail("\(what): environment \"\(environment)\" does not export")
        }
        let changes: [StateChange]
        do {
            changes = try RequestDecoders.importChanges(document: document, format: format, environment: environment)
        } catch {
            Invariant.fail(
                "\(what): the export of \"\(environment)\" does not import as \(format): \(error)\n"
                    + String(decoding: document, as: UTF8.self))
        }
        do {
            let again = try state.applying(changes).state
            Invariant.require(
                equivalent(again, state),
                "\(what): re-importing the export of \"\(environment)\" (\(format)) changed the state\n"
                    + difference(state, again))
            let empty = ServerState(environments: [environment: EnvironmentState(key: environment)])
            let fresh = try empty.applying(changes).state
            var expected = state
            expected.environments = [environment: state.environments[environment]!]
            Invariant.require(
                equivalent(fresh, expected),
                "\(what): importing the export of \"\(environment)\" (\(format)) into an empty environment gave another state\n"
                    + difference(expected, fresh))
        } catch {
            Invariant.fail("\(what): the export of \"\(environment)\" (\(format)) does not apply: \(error)")
        }
    }

    /// Every problem of a refused write says where: a field, and the flag, segment or environment.
    static func checkProblems(_ problems: [ValidationError], of what: String) {
        Invariant.require(!problems.isEmpty, "\(what) was refused as invalid without a problem")
        for problem in problems {
            Invariant.require(
                !problem.field.isEmpty && !problem.problem.isEmpty && (problem.key != nil || problem.environment != nil),
                "\(what): a problem does not say where: \(problem)")
        }
    }

    /// A refused admin write names what it refers to (quoted) or lists its problems.
    static func checkRefusal(_ error: AdminError, of what: String) {
        switch error {
        case .invalid(let problems):
            checkProblems(problems, of: what)
        case .notFound(let message), .conflict(let message), .badRequest(let message):
            Invariant.require(message.contains("\""), "\(what) was refused without naming what: \(message)")
        case .internalFailure(let message):
            Invariant.fail("\(what) failed inside the server: \(message)")
        case .approvalRequired(let message):
            // The fixture's store keeps no approval rules: nothing it is asked may need one.
            Invariant.fail("\(what) asked for an approval no rule requires: \(message)")
        case .unavailable(let message):
            // The fixture's store is in memory: it is never away, and no write waits long.
            Invariant.fail("\(what) found the in-memory store unavailable: \(message)")
        }
    }

    /// Equal but for revisions, numbers written as integers or fractions (`1` and `1.0`), and an
    /// empty targeting object (`{}`, no targeting) — differences the JSON documents cannot carry.
    static func equivalent(_ a: ServerState, _ b: ServerState) -> Bool {
        normalized(a) == normalized(b)
    }

    static func normalized(_ state: ServerState) -> ServerState {
        var state = state
        state.flags = state.flags.mapValues { flag in
            var flag = flag
            flag.variants = flag.variants.mapValues(normalized)
            return flag
        }
        for key in state.environments.keys {
            var environment = state.environments[key]!
            environment.revision = 0
            environment.segments = environment.segments.mapValues(normalized)
            for flag in environment.settings.keys {
                let targeting = environment.settings[flag]!.targeting.map(normalized)
                environment.settings[flag]?.targeting = targeting == .object([:]) ? nil : targeting
            }
            state.environments[key] = environment
        }
        return state
    }

    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .double(let number) where number.rounded() == number && abs(number) < 9.0e15:
            .int(Int(number))
        case .array(let elements): .array(elements.map(normalized))
        case .object(let members): .object(members.mapValues(normalized))
        default: value
        }
    }

    /// The first flag or environment where two states differ, for the failure message.
    static func difference(_ a: ServerState, _ b: ServerState) -> String {
        let (a, b) = (normalized(a), normalized(b))
        for key in Set(a.flags.keys).union(b.flags.keys).sorted() where a.flags[key] != b.flags[key] {
            return "flag \"\(key)\": \(String(describing: a.flags[key])) versus \(String(describing: b.flags[key]))"
        }
        for key in Set(a.environments.keys).union(b.environments.keys).sorted() where a.environments[key] != b.environments[key] {
            return "environment \"\(key)\": \(String(describing: a.environments[key])) versus \(String(describing: b.environments[key]))"
        }
        return "(no difference after normalising)"
    }
}
