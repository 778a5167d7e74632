import ArgumentParser
import SinglecastKit

@main
struct Singlecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "singlecast",
        abstract: "A podcast client: search shows, subscribe, list their episodes, download them, listen.",
        discussion: """
            Files live in $SINGLECAST_HOME (default $XDG_DATA_HOME/singlecast, else \
            ~/.local/share/singlecast): library.sqlite and the Episodes folder.
            PODCAST arguments name a subscription as @N (its number in `singlecast podcasts`), \
            by feed URL, or by a part of its title; a bare number N is a search result.
            """,
        version: SinglecastVersion.current,
        subcommands: [
            Search.self, Episodes.self, Download.self, Downloads.self,
            Pause.self, Resume.self, Cancel.self, Daemon.self,
            Subscribe.self, Unsubscribe.self, Podcasts.self, Update.self, New.self, MarkOld.self, Delete.self,
            Play.self, Played.self, Unplayed.self,
            Import.self, Export.self, Sync.self,
        ]
    )
}
