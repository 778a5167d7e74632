import Foundation
import GRDB

/// How an `Episode` maps to a row of the `episode` table.
enum EpisodeColumns {
    static let upsertSQL = """
        INSERT INTO episode (podcastId, identity, position, title, guid, link, published, duration,
          description, enclosureURL, enclosureLength, enclosureType, season, episodeNumber, explicit,
          transcriptURL, chaptersURL)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(podcastId, identity) DO UPDATE SET
          position = excluded.position, title = excluded.title, guid = excluded.guid,
          link = excluded.link, published = excluded.published, duration = excluded.duration,
          description = excluded.description, enclosureURL = excluded.enclosureURL,
          enclosureLength = excluded.enclosureLength, enclosureType = excluded.enclosureType,
          season = excluded.season, episodeNumber = excluded.episodeNumber, explicit = excluded.explicit,
          transcriptURL = excluded.transcriptURL, chaptersURL = excluded.chaptersURL
        """

    static func arguments(_ episode: Episode, podcastID: Int64, identity: String, position: Int) -> StatementArguments {
        [
            podcastID, identity, position, episode.title, episode.guid, episode.link?.absoluteString,
            episode.published, episode.duration, episode.description,
            episode.enclosure?.url.absoluteString, episode.enclosure?.length, episode.enclosure?.type,
            episode.season, episode.episodeNumber, episode.explicit,
            episode.transcriptURL?.absoluteString, episode.chaptersURL?.absoluteString,
        ]
    }

    static func episode(from row: Row) -> Episode {
        let enclosure = Library.url(row["enclosureURL"]).map {
            Enclosure(url: $0, length: row["enclosureLength"], type: row["enclosureType"])
        }
        return Episode(
            title: row["title"], guid: row["guid"], link: Library.url(row["link"]),
            published: row["published"], duration: row["duration"], description: row["description"],
            enclosure: enclosure, season: row["season"], episodeNumber: row["episodeNumber"],
            explicit: row["explicit"], transcriptURL: Library.url(row["transcriptURL"]),
            chaptersURL: Library.url(row["chaptersURL"]))
    }
}
