import ArgumentParser

/// Episode numbers as typed: `3 5 7`, `1-10`, or both.
enum EpisodeNumbers {
    /// The numbers in the order given, each once.
    static func parse(_ arguments: [String]) throws -> [Int] {
        var numbers: [Int] = []
        for argument in arguments {
            for part in argument.split(separator: ",") {
                let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds.last!),
                    low > 0, low <= high
                else {
                    throw ValidationError("'\(part)' is not an episode number or a range such as 1-10.")
                }
                for number in low...high where !numbers.contains(number) {
                    numbers.append(number)
                }
            }
        }
        return numbers
    }
}

/// Numbers and ranges as arguments, checked while the arguments are parsed.
struct NumberList: ParsableArguments {
    @Argument(help: "Numbers or ranges, such as 3 5 7 or 1-10.")
    var values: [String]

    func validate() throws {
        _ = try numbers()
    }

    /// The numbers in the order given, each once (``EpisodeNumbers/parse(_:)``).
    func numbers() throws -> [Int] {
        try EpisodeNumbers.parse(values)
    }
}
