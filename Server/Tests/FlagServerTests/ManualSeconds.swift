import Synchronization

/// A clock tests move by hand.
final class ManualSeconds: Sendable {
    private let seconds = Mutex<Double>(0)
    var value: Double { seconds.withLock { $0 } }
    func advance(by amount: Double) { seconds.withLock { $0 += amount } }
}
