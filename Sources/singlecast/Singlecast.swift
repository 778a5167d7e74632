import ArgumentParser

@main
struct Singlecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A podcast client: search shows, list their episodes, download them.",
        discussion: """
            Files live in $SINGLECAST_HOME (default $XDG_DATA_HOME/singlecast, else \
            ~/.local/share/singlecast): library.sqlite and the Episodes folder.
            """,
        subcommands: [
            Search.self, Episodes.self, Download.self, Downloads.self,
            Pause.self, Resume.self, Cancel.self, Daemon.self,
        ]
    )
}
