import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Sync subscriptions and listening progress with a gpodder-API server (gpodder.net, Nextcloud GPodder Sync, oPodSync).",
            discussion: """
                The first run needs --server and --user; they are remembered, with the device id and the \
                server's API, so later a bare `singlecast sync` is enough. The password comes from \
                $NETRC or ~/.netrc (machine = the server's host), else $SINGLECAST_SYNC_PASSWORD, else a \
                prompt on a terminal; it is never stored. Exit status: 0 when everything went through, \
                1 when the server failed or refused (nothing is half-applied, nothing to send is lost), \
                64 for missing arguments or password.
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var account: SyncOptions

        @Flag(help: "Forget the server, user and device, and all sync state (no request is made).")
        var forget = false

        @Flag(help: "List the account's devices (gpodder.net API), to join one with --device.")
        var devices = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            if forget && (devices || account.isGiven) {
                throw ValidationError("--forget goes alone.")
            }
        }

        func run() async throws {
            try await SignalGuard.runCancelling { [self] in try await sync() }
        }

        private func sync() async throws {
            if forget {
                let had = try await global.openLibrary().forgetSync()
                if json {
                    try printJSON(["forgotten": had])
                } else {
                    print(had ? "Forgot the sync account and its state." : "No sync account was remembered.")
                }
                return
            }
            if devices {
                try await prepare().listDevices(json: json)
                return
            }
            let succeeded = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                // With the server, the user and the password known without the library, the
                // login goes ahead while the library opens and the account is settled.
                async let login = logInAhead(session: session)
                let run = try await prepare()
                return try await run.sync(json: json, session: session, login: await login)
            }
            if !succeeded { throw ExitCode.failure }
        }

        /// Opens the library and settles the account (see ``SyncRun/prepare(global:library:server:user:device:api:)``).
        private func prepare() async throws -> SyncRun {
            try await SyncRun.prepare(
                global: global, library: try await global.openLibrary(), server: account.server, user: account.user,
                device: account.device, api: account.api)
        }

        /// A login made from the arguments alone, when they name the server and the user and the
        /// password is found without asking (nil otherwise): its failure too is the sync's.
        private func logInAhead(session: HTTPSession) async -> Result<SyncLogin, any Error>? {
            guard let server = account.server.flatMap(SyncOptions.serverURL), let user = account.user,
                let found = SyncPassword.find(server: server, user: user, environment: global.environment)
            else { return nil }
            let credentials = SyncCredentials(user: user, password: found.password)
            do {
                return .success(
                    try await Synchronizer.logIn(to: server, credentials: credentials, dialect: account.api, session: session))
            } catch {
                return .failure(error)
            }
        }
    }
}

/// The options that name the account, shared by `sync` and `update --sync`.
struct SyncOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The sync server's address (remembered; config: sync.server).", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The account's user name (remembered; config: sync.user).", valueName: "name"))
    var user: String?

    @Option(help: ArgumentHelp("This device's id on the server (default singlecast-HOSTNAME; remembered; config: sync.device).", valueName: "id"))
    var device: String?

    @Option(help: ArgumentHelp("The server's API, when it should not be found by asking: gpodder or nextcloud (config: sync.api).", valueName: "api"))
    var api: SyncDialect?

    var isGiven: Bool { server != nil || user != nil || device != nil || api != nil }

    func validate() throws {
        if let server, Self.serverURL(server) == nil {
            throw ValidationError("--server needs an http or https address, not \(server.redactingURLPasswords).")
        }
        if let user, user.isEmpty || user.contains("/") { throw ValidationError("--user needs a user name.") }
        if let device, device.isEmpty || device.contains("/") { throw ValidationError("--device needs an id without '/'.") }
    }

    /// `https://host/` for `host`; nil for what is not an http(s) address. User info is dropped.
    static func serverURL(_ text: String) -> URL? {
        let full = text.contains("://") ? text : "https://" + text
        guard var components = URLComponents(string: full), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else { return nil }
        components.user = nil
        components.password = nil
        return components.url
    }
}

extension SyncDialect: ExpressibleByArgument {}

/// One sync as the command line runs it: the account settled, the password found, the
/// server's changes applied, the feeds of new subscriptions fetched, and the report printed.
struct SyncRun {
    var global: GlobalOptions
    var library: Library
    var account: SyncAccount
    var credentials: SyncCredentials
    var source: SyncPasswordSource

    /// Settles the account (the options given, else the config file's `[sync]`, over what is
    /// remembered) and finds the password, without a request. Throws a `ValidationError`
    /// (exit 64) when something is missing.
    static func prepare(
        global: GlobalOptions, library: Library, server: String? = nil, user: String? = nil, device: String? = nil,
        api: SyncDialect? = nil
    ) async throws -> SyncRun {
        let settings = try global.configuration(flags: [
            .syncServer: ("--server", server.map(SettingValue.text)), .syncUser: ("--user", user.map(SettingValue.text)),
            .syncDevice: ("--device", device.map(SettingValue.text)), .syncAPI: ("--api", api.map { .text($0.rawValue) }),
        ])
        let given = settings[.syncServer].value?.text
        let givenDevice = settings[.syncDevice].value?.text
        let api = settings[.syncAPI].value?.text.flatMap(SyncDialect.init(rawValue:))
        let remembered = try await library.syncAccount()
        guard let server = given.flatMap(SyncOptions.serverURL) ?? remembered?.server,
            let user = settings[.syncUser].value?.text ?? remembered?.user
        else {
            throw ValidationError(
                "No sync account is remembered: give --server and --user (for example --server https://gpodder.net --user NAME).")
        }
        let sameServer = remembered.map { $0.server == server && $0.user == user } ?? false
        let device = givenDevice ?? (sameServer ? remembered?.device : nil) ?? "singlecast-" + Self.hostName()
        let proposed = SyncAccount(
            server: server, user: user, device: device, dialect: api ?? (sameServer ? remembered?.dialect : nil))
        guard let found = Self.password(server: server, user: user, environment: global.environment) else {
            throw ValidationError(
                "No password for \(user) at \(Words.syncServer(server)): put it in ~/.netrc (or the file $NETRC names) as "
                    + "`machine \(server.host(percentEncoded: false) ?? "HOST") login \(user) password …`, "
                    + "or in $\(SyncPassword.environmentVariable), or run sync on a terminal to type it.")
        }
        let account = try await library.rememberSyncAccount(proposed)
        return SyncRun(
            global: global, library: library, account: account,
            credentials: SyncCredentials(user: user, password: found.password), source: found.source)
    }

    /// The netrc entry, the environment, or a prompt without echo when standard input is a terminal.
    static func password(server: URL, user: String, environment: [String: String]) -> (
        password: String, source: SyncPasswordSource
    )? {
        if let found = SyncPassword.find(server: server, user: user, environment: environment) { return found }
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        // Echo off before the prompt shows, so that nothing typed after it is ever echoed.
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        FileHandle.standardError.write(Data("Password for \(user) at \(Words.syncServer(server)): ".utf8))
        let line = readLine(strippingNewline: true)
        if canHide { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        FileHandle.standardError.write(Data("\n".utf8))
        guard let line, !line.isEmpty else { return nil }
        return (line, .prompt)
    }

    static func hostName() -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "linux" }
        let name = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        return name.isEmpty ? "linux" : name
    }

    /// How the failure reads, with where the password came from.
    func words(_ error: SyncError) -> String {
        Words.syncFailure(error, source: source, home: global.environment["HOME"])
    }

    /// Lists the account's devices.
    func listDevices(json: Bool) async throws {
        let listed: [SyncDevice]
        do {
            listed = try await withHTTPSession(global.httpConfiguration(compressed: false)) { session in
                try await Synchronizer(library: library, session: session, credentials: credentials).devices(account).devices
            }
        } catch let error as SyncError {
            printError("error: " + words(error))
            throw ExitCode.failure
        }
        if json {
            try printJSON(listed)
            return
        }
        let width = max(2, listed.map(\.id.count).max() ?? 0)
        print("ID".padding(toLength: width, withPad: " ", startingAt: 0) + "  TYPE     SUBS  CAPTION")
        for device in listed {
            let type = (device.type ?? "").padding(toLength: 7, withPad: " ", startingAt: 0)
            let subscriptions = device.subscriptions.map(String.init) ?? ""
            print(
                device.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(type)  "
                    + String(repeating: " ", count: max(0, 4 - subscriptions.count)) + subscriptions + "  "
                    + (device.caption ?? ""))
        }
    }

    /// What one sync came to.
    struct Outcome {
        var report: SyncReport
        /// Feeds of subscriptions added for the server that failed to fetch.
        var fetchFailures: Int
        /// Whether everything went through.
        var succeeded: Bool { report.actionsRefused == 0 && fetchFailures == 0 }
    }

    /// Syncs, fetches the feeds of subscriptions added for the server, and prints the report;
    /// returns whether everything went through (failures are printed). With `changesOnly` (a
    /// timed update), a sync that changed nothing and had no failure prints nothing.
    /// `session` and `login`, when given, are the ones to sync with (see ``perform(session:login:)``).
    func sync(
        json: Bool, changesOnly: Bool = false, session: HTTPSession? = nil, login: Result<SyncLogin, any Error>? = nil
    ) async throws -> Bool {
        guard let outcome = try await perform(session: session, login: login) else { return false }
        if json {
            try printJSON(self.json(outcome))
        } else if !changesOnly || outcome.report.changedAnything || outcome.fetchFailures > 0 {
            printNow(
                Words.syncSummary(outcome.report, server: Words.syncServer(account.server), fetchFailures: outcome.fetchFailures))
        }
        return outcome.succeeded
    }

    /// The `--json` object of a sync.
    func json(_ outcome: Outcome) -> SyncJSON {
        SyncJSON(outcome.report, server: account.server, fetchFailures: outcome.fetchFailures)
    }

    /// Syncs and fetches the feeds of subscriptions added for the server, without printing the
    /// report; failures are printed on standard error (nil when the sync itself failed). With
    /// `session`, over it (else over one of its own); with `login`, a login made ahead (its
    /// failure is the sync's).
    func perform(session given: HTTPSession? = nil, login: Result<SyncLogin, any Error>? = nil) async throws -> Outcome? {
        let caption = "Singlecast on \(Self.hostName())"
        let outcome: (report: SyncReport, fetchFailures: Int)
        do {
            let body = { (session: HTTPSession) async throws -> (report: SyncReport, fetchFailures: Int) in
                let (report, updates) = try await Synchronizer(library: library, session: session, credentials: credentials)
                    .syncAndFinish(account, caption: caption, login: try login?.get()) {
                        SubscriptionRemoval(buffer: try await global.progressBuffer(library), daemon: global.daemonClient)
                    }
                var failures = 0
                for update in updates {
                    for warning in update.warnings { printError("warning: \(Words.warning(warning))") }
                    if case .failed(let failure) = update.status {
                        failures += 1
                        printError("error: \(update.podcast.feedKey.redactingURLPasswords): \(Words.failure(failure)) (it stays subscribed)")
                    }
                }
                return (report, failures)
            }
            if let given {
                outcome = try await body(given)
            } else {
                outcome = try await withHTTPSession(global.httpConfiguration(compressed: true), body)
            }
        } catch let error as SyncError {
            printError("error: " + words(error))
            return nil
        }
        let report = outcome.report
        if report.actionsRefused > 0 { printError("error: " + Words.syncRefused(report, server: Words.syncServer(account.server))) }
        return Outcome(report: report, fetchFailures: outcome.fetchFailures)
    }
}

/// The `--json` shape of a sync: the summary line's figures.
struct SyncJSON: Encodable {
    var server: String
    var api: String
    var subscriptions: Counts
    var actions: Actions
    var rewrittenURLs: Int
    var failedFeeds: Int

    struct Counts: Encodable {
        var addedHere: Int
        var removedHere: Int
        var addedThere: Int
        var removedThere: Int
    }

    struct Actions: Encodable {
        var received: Int
        var applied: Int
        var waiting: Int
        var sent: Int
        var refused: Int
        var playedWithoutLength: Int
    }

    init(_ report: SyncReport, server: URL, fetchFailures: Int) {
        self.server = server.absoluteString
        api = report.api.rawValue
        subscriptions = Counts(
            addedHere: report.addedHere, removedHere: report.removedHere, addedThere: report.addedThere,
            removedThere: report.removedThere)
        actions = Actions(
            received: report.actionsReceived, applied: report.actionsApplied, waiting: report.actionsWaiting,
            sent: report.actionsSent, refused: report.actionsRefused, playedWithoutLength: report.playedWithoutLength)
        rewrittenURLs = report.rewrittenURLs
        failedFeeds = fetchFailures
    }
}
