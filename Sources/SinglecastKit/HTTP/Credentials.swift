import Foundation

/// A user name and password for HTTP basic authentication.
struct Credentials: Equatable, Sendable {
    var user: String
    var password: String

    /// The value of the `Authorization` header that sends them.
    var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// The netrc file credentials are looked up in: `$NETRC`, else `~/.netrc`.
    static func netrcPath(environment: [String: String]) -> String? {
        environment["NETRC"] ?? environment["HOME"].map { $0 + "/.netrc" }
    }

    /// The credentials for a request to `url`: the URL's user info, else the netrc entry for
    /// its host (the entry for the URL's user name when the URL names a user but no password).
    static func forRequest(to url: URL, netrcPath: String?) -> Credentials? {
        let user = url.user(percentEncoded: false)
        if let user, let password = url.password(percentEncoded: false) {
            return Credentials(user: user, password: password)
        }
        guard let host = url.host(percentEncoded: false), let netrcPath,
            let text = try? String(contentsOfFile: netrcPath, encoding: .utf8)
        else { return user.map { Credentials(user: $0, password: "") } }
        return Netrc(text).credentials(host: host, login: user) ?? user.map { Credentials(user: $0, password: "") }
    }
}

/// A netrc file read as curl reads it: `machine`, `default`, `login` and `password` tokens,
/// values in double quotes with `\"`, `\\`, `\n`, `\r` and `\t` escapes, `#` comments,
/// and `account` and `macdef` skipped.
struct Netrc: Equatable {
    struct Entry: Equatable {
        /// The host name, or nil for the `default` entry.
        var machine: String?
        var login: String?
        var password: String?
    }

    var entries: [Entry] = []

    init(_ text: String) {
        var tokens = Tokens(text[...])
        while let token = tokens.next() {
            switch token {
            case "machine": entries.append(Entry(machine: tokens.next()))
            case "default": entries.append(Entry(machine: nil))
            case "login" where !entries.isEmpty: entries[entries.count - 1].login = tokens.next()
            case "password" where !entries.isEmpty: entries[entries.count - 1].password = tokens.next()
            case "account": _ = tokens.next()
            case "macdef": tokens.skipMacro()
            default: break
            }
        }
    }

    /// The credentials of the first entry for `host` (and `login`, when given), else of
    /// the `default` entry.
    func credentials(host: String, login: String?) -> Credentials? {
        func fits(_ entry: Entry) -> Bool { login == nil || entry.login == login }
        let entry =
            entries.first { $0.machine?.lowercased() == host.lowercased() && fits($0) }
            ?? entries.first { $0.machine == nil && fits($0) }
        guard let entry, let user = entry.login ?? login else { return nil }
        return Credentials(user: user, password: entry.password ?? "")
    }

    /// The tokens of a netrc file, one at a time.
    private struct Tokens {
        var rest: Substring

        init(_ text: Substring) { rest = text }

        mutating func next() -> String? {
            while let first = rest.first {
                if first.isWhitespace {
                    rest.removeFirst()
                } else if first == "#" {
                    rest = rest.drop { !$0.isNewline }
                } else {
                    break
                }
            }
            guard let first = rest.first else { return nil }
            guard first == "\"" else {
                let token = rest.prefix { !$0.isWhitespace }
                rest = rest[token.endIndex...]
                return String(token)
            }
            rest.removeFirst()
            var token = ""
            while let character = rest.popFirst(), character != "\"" {
                guard character == "\\", let escaped = rest.popFirst() else {
                    token.append(character)
                    continue
                }
                switch escaped {
                case "n": token.append("\n")
                case "r": token.append("\r")
                case "t": token.append("\t")
                default: token.append(escaped)
                }
            }
            return token
        }

        /// Skips a macro's name and body, which ends at the first empty line.
        mutating func skipMacro() {
            if let end = rest.range(of: "\n\n") {
                rest = rest[end.upperBound...]
            } else {
                rest = ""
            }
        }
    }
}

extension URL {
    /// Scheme, host and port (the scheme's default port when none is written), in lower case:
    /// credentials are sent only to the origin they came with.
    var origin: String {
        let scheme = scheme?.lowercased() ?? ""
        let port = port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        return "\(scheme)://\(host(percentEncoded: true)?.lowercased() ?? ""):\(port)"
    }

    /// The URL without user name and password.
    public var removingUserInfo: URL {
        guard user != nil || password != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: true)
        else { return self }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url ?? self
    }

    /// This URL with the user info of `source` when it has none of its own and has the same origin.
    func carryingUserInfo(from source: URL) -> URL {
        guard user == nil, source.user != nil, origin == source.origin,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: true),
            let sourceComponents = URLComponents(url: source, resolvingAgainstBaseURL: true)
        else { return self }
        components.percentEncodedUser = sourceComponents.percentEncodedUser
        components.percentEncodedPassword = sourceComponents.percentEncodedPassword
        return components.url ?? self
    }
}
