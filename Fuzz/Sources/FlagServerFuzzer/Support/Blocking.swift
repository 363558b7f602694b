import Foundation

/// Runs `body` to completion and waits for it: libFuzzer calls the harness synchronously, the
/// server's decoders and `FlagAdmin` are async. Nothing in `body` waits on another input, so the
/// wait cannot deadlock.
func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
