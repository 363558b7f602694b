// Compile-time gating: code for phase 2 features is compiled only where the package sets
// PHASE_2_FEATURES (debug builds here, see Package.swift), in addition to the runtime flag.
//
//     swift run -c debug phase-gating     # prints the phase 2 path
//     swift run -c release phase-gating   # the phase 2 code is not in the binary
import ExampleFlags
import FeatureFlags

let configuration: BuildConfiguration
#if DEBUG
configuration = .debug
#else
configuration = .release
#endif

let flags = FeatureFlagManager<AppFlag>(buildConfiguration: configuration)

#if PHASE_2_FEATURES
func chatScreen() -> String {
    flags.isEnabled(.chatViewRedesign) ? "redesigned chat (phase 2 code compiled in)" : "classic chat (phase 2 code compiled in, flag off)"
}
#else
func chatScreen() -> String {
    "classic chat (phase 2 code not compiled)"
}
#endif

print("\(configuration): \(chatScreen())")
