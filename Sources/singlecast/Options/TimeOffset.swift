import ArgumentParser

/// A place in an episode as typed: `90` (seconds), `12:30` or `1:02:03`.
struct TimeOffset: ExpressibleByArgument {
    let seconds: Double

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            // Only the last part may have a fraction; the parts after the first are below 60.
            let isLast = index == parts.count - 1
            guard let value = isLast ? Double(part) : Int(part).map(Double.init), value >= 0, value.isFinite,
                part.allSatisfy({ $0.isNumber || (isLast && $0 == ".") }),
                index == 0 || value < 60
            else { return nil }
            total = total * 60 + value
        }
        seconds = total
    }

    static var defaultValueDescription: String { "90, 12:30 or 1:02:03" }
}
