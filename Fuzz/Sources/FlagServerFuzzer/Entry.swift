import Foundation

/// libFuzzer's entry point: runs the flag server target named by `FUZZ_TARGET` on one input.
///
/// A separate executable from `FeatureFlagsFuzzer`, so that the library targets never build or
/// link Hummingbird, NIO and SQLite.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ServerFuzzTarget.selected.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// libFuzzer calls this once before the first input: the fixture is built here, so the leak
/// checker (which runs after inputs) does not count what the fixture keeps for the whole run.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    ServerFixture.prepare()
    return 0
}
