// The sample's widget extension: `FlagsWidget` from Examples/ExampleWidget/FlagsWidget.swift
// (added to this target by reference), reading the flags the app publishes to the App Group.
#if os(iOS)
import SwiftUI
import WidgetKit

@main
struct SampleWidgetBundle: WidgetBundle {
    var body: some Widget {
        FlagsWidget()
    }
}
#endif
