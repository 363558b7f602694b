import FlagServerModel
import Foundation

/// Where the approval rules of environments and the change requests are kept (see
/// `Server/Docs/Approvals.md`). The schema is created by ``FlagStore/migrate()`` (migration 5).
/// Every implementation passes `ApprovalStoreCompatibilityTests`.
public protocol ApprovalStore: Sendable {
    /// The rule of every environment that has one.
    func approvalRules() async throws(StoreError) -> [String: ApprovalRule]

    /// Stores `environment`'s rule (`nil` removes it) and appends `audit`, in one transaction.
    func putApprovalRule(_ rule: ApprovalRule?, environment: String, audit: AuditEntry) async throws(StoreError)

    /// Stores a new change request.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if one with its id exists.
    func insertChangeRequest(_ request: ChangeRequest) async throws(StoreError)

    /// The change request `id`, if it exists.
    func changeRequest(id: String) async throws(StoreError) -> ChangeRequest?

    /// The change requests of `environment`, newest first, at most `limit`.
    func changeRequests(environment: String, limit: Int) async throws(StoreError) -> [ChangeRequest]

    /// Replaces a change request with `request`, whose ``ChangeRequest/version`` is one more than
    /// the stored one's.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the stored version is another (someone changed
    ///   it meanwhile); ``StoreError/notFound(_:)`` when there is none.
    func updateChangeRequest(_ request: ChangeRequest) async throws(StoreError)
}

extension ChangeRequest {
    /// How a change request is stored: one JSON document.
    func stored() throws(StoreError) -> String {
        do { return String(decoding: try JSONEncoder().encode(self), as: UTF8.self) } catch {
            throw .database("change request \(id) does not encode: \(error)")
        }
    }

    init(stored: String) throws(StoreError) {
        do { self = try JSONDecoder().decode(ChangeRequest.self, from: Data(stored.utf8)) } catch {
            throw .database("a stored change request does not decode: \(error)")
        }
    }
}

extension ApprovalRule {
    /// `appliesTo` as stored: a JSON array.
    var storedScopes: String { "[" + appliesTo.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]" }

    init(requiredApprovals: Int, storedScopes: String) {
        let names = (try? JSONDecoder().decode([String].self, from: Data(storedScopes.utf8))) ?? []
        self.init(requiredApprovals: requiredApprovals, appliesTo: Set(names.compactMap(Scope.init(rawValue:))))
    }
}
