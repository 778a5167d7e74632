import ArgumentParser

/// A playback speed as typed: `1.5`, from 0.25 to 4.
struct PlaybackSpeed: ExpressibleByArgument {
    static let range: ClosedRange<Double> = 0.25...4

    let value: Double

    init?(argument: String) {
        guard let value = Double(argument), Self.range.contains(value) else { return nil }
        self.value = value
    }

    static var defaultValueDescription: String { "a speed from 0.25 to 4" }
}
