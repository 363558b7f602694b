import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsRemote

/// A payload with a duplicate key has no single meaning: it is refused with the key and place.
struct RemotePayloadDuplicateKeyTests {
    @Test(arguments: [
        (
            RemotePayloadFormat.appConfig, #"{"schemaVersion": 1, "flags": {}, "schemaVersion": 2}"#,
            #"invalid JSON at line 1, column 35: duplicate key "schemaVersion""#
        ),
        (
            .ofrep, #"{"flags": [{"key": "a", "value": true, "value": false}]}"#,
            #"invalid JSON at "/flags/0" (line 1, column 40): duplicate key "value""#
        ),
    ])
    func aDuplicateKeyIsAnInvalidPayloadNamingTheKey(format: RemotePayloadFormat, text: String, fragment: String) {
        #expect {
            try RemotePayloadDecoder.decode(Data(text.utf8), format: format, registry: testRegistry)
        } throws: { error in
            guard let error = error as? RemoteLoadError else { return false }
            return error.code == .invalidJSON && error.message.contains(fragment)
        }
    }
}
