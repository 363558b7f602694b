import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Testing

/// A hostile or broken server costs bounded work and memory, and loses no count.
extension FlagEventDeliveryTests {
    /// `count` tracked events named `event-0`, `event-1`…
    static func track(_ count: Int, on recorder: FlagEventRecorder, prefix: String = "event") {
        for index in 0..<count { recorder.track("\(prefix)-\(index)", unit: nil) }
    }

    @Test func aBatchRefusedAsMalformedKeepsTheDropCountsItCarried() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("a", unit: nil)
        recorder.track("b", unit: nil)
        let transport = EventTransport(.status(413), .status(400), .status(202))
        let delivery = fixture.delivery(recorder, transport: transport, limits: .init(batchEvents: 1))
        // "a" is too large and dropped (413); the next batch carries that drop with "b" and is
        // refused (400): both drops go in the batch after, one of drop counts alone.
        _ = await delivery.flush()
        #expect(transport.batches.map { $0.events.map(\.name) } == [["a"], ["b"], []])
        #expect(transport.batches.map(\.dropped) == [nil, FlagEventDropCounts(tracked: 1), FlagEventDropCounts(tracked: 2)])
    }
}
