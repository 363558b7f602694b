import Foundation

/// libFuzzer's entry point: runs the target named by `FUZZ_TARGET` on one input.
///
/// libFuzzer supplies `main`, calls this once per input and treats a crash (an ``Invariant``
/// failure aborts) as a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.selected.run(Data(bytes: data, count: size))
    return 0
}
