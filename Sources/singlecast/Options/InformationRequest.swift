/// Arguments that ask the program about itself (help, the version, a completion script, the help
/// dump the man pages are made from): they need neither the library nor the config file.
enum InformationRequest {
    static let flags: Set<String> = ["-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help"]

    static func isAsked(in arguments: [String]) -> Bool {
        arguments.contains { flags.contains($0) }
    }
}
