import ArgumentParser
import SinglecastKit

/// A first argument that names no command, caught before the parser, which would call it an
/// unexpected argument (and `help` would show the overview for a name it does not know).
enum UnknownCommand {
    /// The message for `arguments` when they start with a name that is no command (or ask
    /// `help` about one), with the nearest command when one is close; nil when they are fine.
    static func message(for arguments: [String], commands: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if first == "help" {
            guard let topic = arguments.dropFirst().first, !topic.hasPrefix("-"), !commands.contains(topic) else { return nil }
            return "there is no command \u{201C}\(topic)\u{201D}" + suggestion(topic, commands)
        }
        guard !commands.contains(first) else { return nil }
        return "\u{201C}\(first)\u{201D} is not a command" + suggestion(first, commands)
    }

    private static func suggestion(_ name: String, _ commands: [String]) -> String {
        NearestName.find(name, in: commands).map { "; did you mean \u{201C}\($0)\u{201D}?" } ?? "; see 'singlecast --help'"
    }
}
