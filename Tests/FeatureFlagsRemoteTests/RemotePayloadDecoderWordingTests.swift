import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsRemote

struct RemotePayloadDecoderWordingTests {
    /// The supported versions read as words, not as a Swift range ("reads 1...1").
    @Test func unsupportedSchemaVersionNamesTheVersionThisBuildReads() {
        let error = #expect(throws: RemoteLoadError.self) {
            try RemotePayloadDecoder.decode(
                Data(#"{"schemaVersion": 7, "flags": {}}"#.utf8), format: .appConfig, registry: testRegistry)
        }
        #expect(
            error?.message
                == "The app_config payload has schemaVersion 7; this build reads schemaVersion 1 only. Update the app or serve a compatible version."
        )
    }
}
