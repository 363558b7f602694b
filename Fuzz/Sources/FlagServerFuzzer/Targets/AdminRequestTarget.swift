@_spi(Fuzzing) import FlagServer
import FlagEvaluation
import Foundation

/// An admin API request body: byte 0 picks the request (create environment, put flag, put
/// settings, put segment, revert, create token), byte 1 the flag or segment key and environment
/// of the URL (and the format of the round trip), the rest is the body.
///
/// Invariants:
/// - a body the server refuses gets 400 with a message that starts with the place: `the body`
///   or a field path whose first name is one of the request's fields;
/// - a decoded body written through `FlagAdmin` (over an in-memory store holding the fixture) is
///   either refused with an error naming a key and field, the stored state untouched and nothing
///   committed, or accepted: the state is the changes applied, it passes the validator, and the
///   URL's environment exported and imported again (as flagd or manifest) gives the same state.
enum AdminRequestTarget {
    /// The fields each body has (the first name of any field path in a refusal).
    static let fields: [RequestDecoders.AdminBody: Set<String>] = [
        .createEnvironment: ["key", "reason"],
        .putFlag: ["type", "variants", "metadata", "defaultVariant", "reason"],
        .putSettings: ["enabled", "defaultVariant", "targeting", "reason"],
        .putSegment: ["rule", "reason"],
        .revert: ["revision", "reason"],
        .createToken: ["name", "environment", "role"],
    ]

    /// URL keys: existing flags and a segment, a new key, keys the validator refuses.
    static let keys = ["checkout", "theme", "page-size", "api-key", "beta", "new-flag", "bad key", ""]
    static let environments = ["production", "staging", "nowhere"]

    static func run(_ bytes: [UInt8]) async {
        guard bytes.count >= 2 else { return }
        let kind = RequestDecoders.AdminBody.allCases[Int(bytes[0]) % RequestDecoders.AdminBody.allCases.count]
        let key = keys[Int(bytes[1]) % keys.count]
        let environment = environments[Int(bytes[1] / 8) % environments.count]
        let body = Array(bytes[2...])
        let what = "\(kind.rawValue) body (key \"\(key)\", environment \"\(environment)\")"

        let changes: [StateChange]
        do {
            changes = try await RequestDecoders.adminChanges(kind, body: body, environment: environment, key: key)
        } catch {
            checkDecodingRefusal(error, kind: kind, what: what)
            return
        }
        guard !changes.isEmpty else { return }

        let (admin, store) = await ServerFixture.admin()
        let before = await admin.state
        do {
            let revisions = try await admin.write(actor: "fuzz", reason: nil) { _ in changes }
            let after = await admin.state
            Invariant.require(store.commits == (revisions.isEmpty ? 0 : 1), "\(what): \(store.commits) commits for revisions \(revisions)")
            Invariant.require(after == store.state, "\(what): the admin's state is not the stored state")
            let expected = try before.applying(changes).state
            Invariant.require(
                StateChecks.equivalent(after, expected),
                "\(what): the stored state is not the changes applied\n" + StateChecks.difference(expected, after))
            let format = bytes[1] >= 128 ? "manifest" : "flagd"
            StateChecks.checkAccepted(after, environment: environment, format: format, after: what)
        } catch let error as AdminError {
            StateChecks.checkRefusal(error, of: what)
            Invariant.require(store.commits == 0, "\(what) was refused (\(error)) but committed")
            let after = await admin.state
            Invariant.require(after == before && store.state == before, "\(what) was refused (\(error)) but changed the state")
        } catch {
            Invariant.fail("\(what): \(error)")
        }
    }

    /// 400 with `<place>: <problem>`, the place `the body` or a path into the request's fields.
    static func checkDecodingRefusal(_ refusal: RequestDecoders.Refusal, kind: RequestDecoders.AdminBody, what: String) {
        Invariant.require(refusal.status == 400 && refusal.code == "bad_request", "\(what): refused with \(refusal)")
        guard let separator = refusal.message.range(of: ": ") else {
            Invariant.fail("\(what): the refusal does not say where: \(refusal.message)")
        }
        let place = refusal.message[..<separator.lowerBound]
        // "the body", "the body is not JSON", "the body is too large", and the schema check's
        // "(body)": the body as a whole.
        guard !place.hasPrefix("the body"), place != "(body)" else { return }
        // An unknown field is named by its own (unknown) name, which may itself hold ": ".
        guard !refusal.message.contains(": unknown field; the fields are ") else { return }
        let field = String(place.prefix { $0 != "." && $0 != "[" })
        Invariant.require(
            fields[kind]!.contains(field), "\(what): the refusal names \"\(place)\", not a field of the body: \(refusal.message)")
    }
}
