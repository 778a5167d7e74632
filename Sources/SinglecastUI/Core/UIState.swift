import Foundation
import SinglecastKit

/// Everything the terminal UI shows, as a value: ``UIUpdate`` makes the next one from a
/// message, ``UIView`` draws one into a canvas.
public struct UIState: Equatable, Sendable {
    /// The screens the number keys switch between.
    public enum Screen: Equatable, Sendable {
        /// `1`: podcasts, episodes and details side by side.
        case browse
        /// `2`: the new episodes of every subscription, newest first.
        case new
        /// `3`: the queue, in the order it plays.
        case queue
        /// `4`: every download with its progress.
        case downloads
        /// `5`: the iTunes directory.
        case search
    }

    /// The panes of ``Screen/browse``, left to right.
    public enum Pane: Int, CaseIterable, Equatable, Sendable {
        case podcasts, episodes, details
    }

    /// The terminal's size in cells.
    public var width: Int
    public var height: Int
    public var glyphs: Glyphs
    public var screen = Screen.browse
    public var focus = Pane.podcasts
    public var podcasts = PodcastList()
    public var episodes = EpisodeList()
    /// The details of the selected episode, once read.
    public var details: EpisodeDetails?
    /// How far the details pane is scrolled.
    public var detailsScroll = 0
    public var newEpisodes = ItemList<NewEpisode>()
    public var queue = ItemList<QueueEntry>()
    public var downloads = ItemList<Download>()
    public var search = SearchState()
    /// A line being typed (a feed's URL, a filter) or a question being asked.
    public var input: TextInput?
    /// The last thing the UI has to say (an action's result, a failure, a URL).
    public var status: StatusLine?
    public var playing: NowPlaying?
    public var sleepTimer = SleepTimer.off
    public var showsHelp = false
    /// How many downloads run in the UI's own process (quitting asks what becomes of them).
    public var localDownloads = 0
    /// The podcasts being refreshed now.
    public var refreshing: Set<Int64> = []
    /// Seconds on a monotonic clock, as the last tick said (the sleep timer's and the
    /// now-playing line's clock).
    public var now: Double = 0
    /// What each key does (the config file's `[ui.keys]`).
    public var keyMap = KeyMap.standard
    /// How far `f` and `b` jump, in seconds (the config file's `skip-forward` and `skip-back`).
    public var skipForward: Double = 30
    public var skipBack: Double = 10

    public init(width: Int, height: Int, glyphs: Glyphs = .unicode) {
        self.width = width
        self.height = height
        self.glyphs = glyphs
    }

    /// Whether the terminal is too small to draw the UI in.
    public var isTooSmall: Bool { width < 60 || height < 15 }
}

/// A selection in a list and the first row shown.
public struct ListCursor: Equatable, Sendable {
    public var selected = 0
    public var top = 0

    /// The cursor moved by `delta` rows in a list of `count` rows, `visible` of them shown.
    func moved(by delta: Int, count: Int, visible: Int) -> ListCursor {
        ListCursor(selected: selected + delta, top: top).clamped(count: count, visible: visible)
    }

    /// The cursor on `index`.
    func moved(to index: Int, count: Int, visible: Int) -> ListCursor {
        ListCursor(selected: index, top: top).clamped(count: count, visible: visible)
    }

    /// The selection within the list, and the rows shown scrolled so that it is among them.
    func clamped(count: Int, visible: Int) -> ListCursor {
        guard count > 0 else { return ListCursor() }
        let selected = min(max(0, self.selected), count - 1)
        let rows = max(1, visible)
        var top = min(self.top, selected)
        if selected >= top + rows { top = selected - rows + 1 }
        top = max(0, min(top, max(0, count - rows)))
        return ListCursor(selected: selected, top: top)
    }
}

/// What a list's filter matches: the title the list shows.
public protocol Titled {
    var listTitle: String { get }
}

extension NewEpisode: Titled {
    public var listTitle: String { entry.episode.title }
}

extension QueueEntry: Titled {
    public var listTitle: String { entry.episode.title }
}

extension Download: Titled {
    public var listTitle: String { episodeTitle }
}

extension SearchResult: Titled {
    public var listTitle: String { title }
}

/// A list held whole (new episodes, downloads, search results), with its cursor and filter.
public struct ItemList<Item: Equatable & Sendable & Titled>: Equatable, Sendable {
    public var items: [Item] = []
    public var cursor = ListCursor()
    /// Only items whose title holds this (case-insensitively) are listed.
    public var filter = ""
    public var isLoaded = false

    /// The items the filter lets through.
    public var visible: [Item] {
        filter.isEmpty ? items : items.filter { $0.listTitle.localizedCaseInsensitiveContains(filter) }
    }

    public var selected: Item? {
        let shown = visible
        return shown.indices.contains(cursor.selected) ? shown[cursor.selected] : nil
    }
}

/// One subscription in the podcasts pane.
public struct PodcastRow: Equatable, Sendable {
    public var podcast: StoredPodcast
    /// The counts, once read (they come after the titles, so that the first frame is fast).
    public var unplayedCount: Int?
    public var newCount: Int?

    public init(podcast: StoredPodcast, unplayedCount: Int? = nil, newCount: Int? = nil) {
        self.podcast = podcast
        self.unplayedCount = unplayedCount
        self.newCount = newCount
    }
}

/// The podcasts pane's list.
public struct PodcastList: Equatable, Sendable {
    public var rows: [PodcastRow] = []
    public var cursor = ListCursor()
    public var filter = ""
    public var isLoaded = false

    /// The rows the filter lets through.
    public var visible: [PodcastRow] {
        filter.isEmpty ? rows : rows.filter { $0.podcast.podcast.title.localizedCaseInsensitiveContains(filter) }
    }

    /// The selected podcast.
    public var selected: PodcastRow? {
        let shown = visible
        return shown.indices.contains(cursor.selected) ? shown[cursor.selected] : nil
    }
}

/// The episodes pane's list: a window of the selected podcast's episodes, read as the cursor
/// moves, so that a podcast of any length costs the same to show.
public struct EpisodeList: Equatable, Sendable {
    public var podcastID: Int64?
    /// Only episodes whose title holds this are listed (the library filters them).
    public var filter = ""
    /// How many episodes the list has (with the filter).
    public var total = 0
    /// The index in the list of `entries[0]`.
    public var windowStart = 0
    public var entries: [EpisodeEntry] = []
    public var cursor = ListCursor()
    public var isLoaded = false
    /// The window asked for and not arrived yet, so that it is asked for once.
    public var pendingStart: Int?

    /// The episode at `index` of the list, when its window is read.
    public func entry(at index: Int) -> EpisodeEntry? {
        let offset = index - windowStart
        return entries.indices.contains(offset) ? entries[offset] : nil
    }

    public var selected: EpisodeEntry? { entry(at: cursor.selected) }
}

/// A window of a podcast's episodes, as the library read it.
public struct EpisodeWindow: Equatable, Sendable {
    public var podcastID: Int64
    public var filter: String
    public var start: Int
    public var total: Int
    public var entries: [EpisodeEntry]

    public init(podcastID: Int64, filter: String, start: Int, total: Int, entries: [EpisodeEntry]) {
        self.podcastID = podcastID
        self.filter = filter
        self.start = start
        self.total = total
        self.entries = entries
    }
}

/// What the details pane shows of an episode beyond its row.
public struct EpisodeDetails: Equatable, Sendable {
    public var episodeID: Int64
    /// The show notes as plain text, paragraphs separated by empty lines.
    public var notes: [String]
    /// The links the show notes hold, in order.
    public var links: [String]
    /// The chapters saved with the episode's file.
    public var chapters: [PlaybackChapter]

    /// The details of an episode as the library reads them (``SinglecastKit/EpisodeDetails``):
    /// its notes' paragraphs and links, and its chapters.
    public init(episodeID: Int64, _ loaded: SinglecastKit.EpisodeDetails) {
        self.init(episodeID: episodeID, notes: loaded.notes, chapters: loaded.chapters)
    }

    public init(episodeID: Int64, notes: ShowNotes, chapters: [PlaybackChapter] = []) {
        self.init(episodeID: episodeID, notes: notes.paragraphs, links: notes.links, chapters: chapters)
    }

    public init(episodeID: Int64, notes: [String], links: [String], chapters: [PlaybackChapter] = []) {
        self.episodeID = episodeID
        self.notes = notes
        self.links = links
        self.chapters = chapters
    }
}

/// The directory search screen.
public struct SearchState: Equatable, Sendable {
    public var term = ""
    /// Keys go to the term while it is being typed.
    public var isEditing = true
    public var isSearching = false
    public var results = ItemList<SearchResult>()
}

/// A line being typed at the bottom of the screen.
public struct TextInput: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable {
        /// `a`: the URL of a feed to subscribe to.
        case feedURL
        /// `/`: the filter of the focused list (applied as it is typed).
        case filter
        /// `d`: yes or no to unsubscribing from this podcast.
        case confirmUnsubscribe(podcastID: Int64, title: String)
        /// `q` while downloads run here: hand them to the daemon, or pause them.
        case quitWithDownloads
    }

    public var purpose: Purpose
    public var text = ""
}

/// A line of news at the bottom of the screen.
public struct StatusLine: Equatable, Sendable {
    public var text: String
    public var isFailure = false

    public init(_ text: String, isFailure: Bool = false) {
        self.text = text
        self.isFailure = isFailure
    }
}

/// The episode playing (or starting) and where it is.
public struct NowPlaying: Equatable, Sendable {
    public var episodeID: Int64
    public var podcastID: Int64
    public var title: String
    /// False until sound begins.
    public var hasStarted = false
    public var isPaused = false
    /// The position the player last reported, at ``reportedAt`` on the UI's clock.
    public var position: Double = 0
    public var reportedAt: Double = 0
    public var duration: Double?
    public var speed: Double = 1
    public var chapter: String?

    public init(episodeID: Int64, podcastID: Int64, title: String) {
        self.episodeID = episodeID
        self.podcastID = podcastID
        self.title = title
    }

    /// Where playing is at `now`: the last report moved on by the time since, at the speed.
    public func position(at now: Double) -> Double {
        guard hasStarted, !isPaused else { return position }
        let moved = position + max(0, now - reportedAt) * speed
        return duration.map { min(moved, $0) } ?? moved
    }
}

/// When playing pauses by itself (`t` cycles through them).
public enum SleepTimer: Equatable, Sendable {
    case off
    /// Pauses `minutes` after it was set, at `deadline` on the UI's clock.
    case after(minutes: Int, deadline: Double)
    /// Pauses when the episode ends (nothing else starts).
    case endOfEpisode
}
