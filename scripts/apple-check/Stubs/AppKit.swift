// AppKit (macOS only). The project uses nothing from it yet; the module exists so that
// `canImport(AppKit)` is true on macOS only. Add declarations as the code uses them, each with its
// documentation page (https://developer.apple.com/documentation/appkit/...).
import Foundation
