@_spi(Fuzzing) import FlagServer
import FlagEvaluation
import Foundation

/// An import document for the fixture's production environment: byte 0 picks the format
/// (even: `flagd`, odd: `manifest`), the rest is the document.
///
/// Invariants:
/// - a document the reader refuses gets 400 with a message saying where, or 422 with problems
///   that each name a key and field;
/// - the changes of a document that reads always apply to the state (the dry run);
/// - written through `FlagAdmin` (as the import without `dryRun` does), a document whose dry run
///   found problems is refused with exactly those problems, nothing committed and the state
///   untouched; one without problems is stored as the dry run computed it, and the environment
///   exported and imported again (in the same format) gives the same state.
enum ImportTarget {
    static func run(_ bytes: [UInt8]) async {
        guard let first = bytes.first else { return }
        let format = first % 2 == 0 ? "flagd" : "manifest"
        let document = Array(bytes.dropFirst())
        let what = "a \(format) import"

        let changes: [StateChange]
        do {
            changes = try RequestDecoders.importChanges(document: document, format: format, environment: "production")
        } catch {
            switch error.status {
            case 400:
                Invariant.require(error.message.contains(": "), "\(what) was refused without saying where: \(error)")
            case 422:
                StateChecks.checkProblems(error.problems, of: what)
            default:
                Invariant.fail("\(what) was refused with \(error)")
            }
            return
        }

        // The dry run.
        let base = ServerFixture.state
        let planned: ServerState
        do {
            planned = try base.applying(changes).state
        } catch {
            Invariant.fail("\(what): the changes of a document that reads do not apply: \(error)")
        }
        let problems = StateValidator.problems(in: planned)
        if !problems.isEmpty { StateChecks.checkProblems(problems, of: what) }

        // The import.
        let (admin, store) = await ServerFixture.admin()
        do {
            try await admin.write(actor: "fuzz", reason: "import") { _ in changes }
            Invariant.require(problems.isEmpty, "\(what) was written although its dry run found problems: \(problems)")
            let after = await admin.state
            Invariant.require(
                StateChecks.equivalent(after, planned), "\(what): the stored state is not the dry run's\n" + StateChecks.difference(planned, after))
            StateChecks.checkAccepted(after, environment: "production", format: format, after: what)
        } catch {
            Invariant.require(error == .invalid(problems), "\(what) was refused with \(error), its dry run found \(problems)")
            Invariant.require(store.commits == 0, "\(what) was refused but committed")
            let after = await admin.state
            Invariant.require(after == base && store.state == base, "\(what) was refused but changed the state")
        }
    }
}
