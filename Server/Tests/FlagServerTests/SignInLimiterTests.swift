@testable import FlagServer
import Foundation
import Synchronization
import Testing

/// Sign-in attempts are limited per account, per client address and in total, and password
/// checks run on a bounded pool of their own.
struct SignInLimiterTests {
    @Test
    func slowGuessingOfOneAccountIsLimitedWithoutLockingOutOthers() {
        var options = ConsoleOptions()
        options.signInsPerAccountPerMinute = 3
        options.signInsPerAddressPerMinute = 100
        let limiter = SignInLimiter(options: options)
        for index in 0..<3 { #expect(limiter.acquire(account: "alice", address: "10.0.0.\(index)") == nil) }
        guard case .account(let retryAfter)? = limiter.acquire(account: "alice", address: "10.0.0.9") else {
            Issue.record("the fourth guess of alice's password was not limited")
            return
        }
        #expect(retryAfter >= 1)
        #expect(limiter.acquire(account: "bob", address: "10.0.0.9") == nil)
    }

    @Test
    func oneAddressTryingManyNamesIsLimitedWithoutLockingOutOthers() {
        var options = ConsoleOptions()
        options.signInsPerAddressPerMinute = 4
        let limiter = SignInLimiter(options: options)
        for index in 0..<4 { #expect(limiter.acquire(account: "user\(index)", address: "10.0.0.1") == nil) }
        guard case .address? = limiter.acquire(account: "alice", address: "10.0.0.1") else {
            Issue.record("the fifth attempt from one address was not limited")
            return
        }
        // The refused attempt used none of alice's 5 attempts a minute: all 5 are left.
        for address in ["10.0.0.2", "10.0.0.2", "10.0.0.2", "10.0.0.3", "10.0.0.3"] {
            #expect(limiter.acquire(account: "alice", address: address) == nil)
        }
    }

    @Test
    func passwordChecksPastThePoolAndItsQueueAreRefusedAtOnce() async throws {
        let checker = PasswordChecker(threads: 1, queue: 0)
        let release = DispatchSemaphore(value: 0)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        async let blocked: Void = checker.run {
            startedContinuation.yield()
            release.wait()  // holds the pool's only thread until the check below was refused
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        await #expect(throws: PasswordChecker.Busy.self) { try await checker.run { () } }
        release.signal()
        try await blocked
        // Room again.
        #expect(try await checker.run { 42 } == 42)
    }
}
