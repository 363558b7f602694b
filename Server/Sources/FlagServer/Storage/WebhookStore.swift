import FlagServerModel
import Foundation

/// Where webhook endpoints and their delivery queue and log are kept (`Server/Docs/Webhooks.md`).
/// The schema is created by ``FlagStore/migrate()`` (migration 7). Both flag stores implement it
/// and pass `WebhookStoreCompatibilityTests`.
public protocol WebhookStore: Sendable {
    /// Every endpoint, oldest first.
    func webhookEndpoints() async throws(StoreError) -> [WebhookEndpoint]

    /// The endpoint `id`, if it exists.
    func webhookEndpoint(id: String) async throws(StoreError) -> WebhookEndpoint?

    /// Stores `endpoint` (new or replacing the one with its id) and appends `audit`, in one transaction.
    func putWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws(StoreError)

    /// Removes the endpoint `id` and its deliveries and appends `audit`, in one transaction.
    ///
    /// - Throws: ``StoreError/notFound(_:)`` when there is none.
    func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws(StoreError)

    /// Stores new deliveries (one transaction).
    func insertWebhookDeliveries(_ deliveries: [WebhookDelivery]) async throws(StoreError)

    /// The endpoints that have pending deliveries due at `time` (each once, in no order).
    func endpointsWithDueWebhookDeliveries(at time: Date) async throws(StoreError) -> [String]

    /// Claims at most `limit` pending deliveries of `endpoint` due at `time`, oldest due first:
    /// their next attempt moves to `leaseUntil`, so that no other server sharing the database
    /// takes them meanwhile (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: the write lock).
    /// Claims are per endpoint so that a slow endpoint's deliveries never wait in one batch with
    /// another endpoint's.
    func claimWebhookDeliveries(endpoint: String, dueAt time: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [WebhookDelivery]

    /// Replaces the stored delivery with `delivery` (after an attempt, or for a redelivery).
    ///
    /// - Throws: ``StoreError/notFound(_:)`` when it is gone (its endpoint was deleted).
    func updateWebhookDelivery(_ delivery: WebhookDelivery) async throws(StoreError)

    /// The deliveries of `endpoint`, newest first, at most `limit`.
    func webhookDeliveries(endpoint: String, limit: Int) async throws(StoreError) -> [WebhookDelivery]

    /// The delivery `id`, if it exists.
    func webhookDelivery(id: String) async throws(StoreError) -> WebhookDelivery?

    /// Removes delivered and failed deliveries last updated before `time`; returns how many.
    @discardableResult
    func deleteWebhookDeliveries(finishedBefore time: Date) async throws(StoreError) -> Int
}
