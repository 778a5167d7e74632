import Foundation
import SinglecastKit

/// The view: a pure function of the state that draws a frame into a canvas.
public enum UIView {
    public static func render(_ state: UIState) -> Canvas {
        var canvas = Canvas(width: state.width, height: state.height)
        if state.isTooSmall {
            canvas.put(TerminalText.truncated(UIWords.tooSmall, toWidth: state.width), x: 0, y: 0)
            return canvas
        }
        let layout = ScreenLayout(state)
        drawTabs(state, layout.tabs, &canvas)
        if state.showsHelp {
            HelpView.draw(state, layout.body, &canvas)
        } else {
            switch state.screen {
            case .browse: BrowseView.draw(state, layout, &canvas)
            case .new: ListViews.drawNew(state, layout.body, &canvas)
            case .queue: ListViews.drawQueue(state, layout.body, &canvas)
            case .downloads: ListViews.drawDownloads(state, layout.body, &canvas)
            case .search: ListViews.drawSearch(state, layout.body, &canvas)
            }
        }
        drawStatus(state, layout.status, &canvas)
        NowPlayingLine.draw(state, layout.nowPlaying, &canvas)
        canvas.put(hints(state), x: 0, y: layout.hints.y, style: .dim)
        return canvas
    }

    private static let tabs: [(UIState.Screen, KeyMap.Action, String)] = [
        (.browse, .viewPodcasts, "Podcasts"), (.new, .viewNew, "New"), (.queue, .viewQueue, "Queue"),
        (.downloads, .viewDownloads, "Downloads"), (.search, .viewSearch, "Search"),
    ]

    private static func drawTabs(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let labels = KeyLabels(state)
        var x = area.x
        for (screen, action, name) in tabs {
            let style: CellStyle = screen == state.screen ? [.reverse, .bold] : []
            let key = labels.first(action)
            x += canvas.put(" \(key.isEmpty ? name : key + " " + name) ", x: x, y: area.y, style: style) + 1
        }
        if !state.refreshing.isEmpty {
            let text = "\(state.glyphs.updating) \(state.refreshing.count)"
            canvas.put(text, x: area.x + area.width - TerminalText.width(text), y: area.y, style: .accent)
        }
    }

    private static func drawStatus(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        if let input = state.input {
            let prompt: String
            switch input.purpose {
            case .feedURL: prompt = "Feed URL (Enter subscribes, Esc cancels): "
            case .filter: prompt = "Filter: "
            case .confirmUnsubscribe(_, let title): prompt = "Unsubscribe from \(title)? Its files are kept. (y/n) "
            case .quitWithDownloads:
                prompt = "Downloads are running here: d hands them to the daemon, p pauses them, Esc stays. "
            }
            let used = canvas.put(prompt, x: area.x, y: area.y, style: .bold)
            canvas.put(input.text + "▏", x: area.x + used, y: area.y)
        } else if let status = state.status {
            canvas.put(
                TerminalText.truncated(status.text, toWidth: area.width), x: area.x, y: area.y,
                style: status.isFailure ? .warning : [])
        }
    }

    private static func hints(_ state: UIState) -> String {
        if state.showsHelp { return "any key closes the help" }
        if state.input != nil { return "Enter done  Esc cancel" }
        let keys = KeyLabels(state)
        let hints: [(String, String)]
        switch state.screen {
        case .browse, .new:
            hints = [
                (keys.first(.open), "play"), (keys.first(.enqueue), "queue"), (keys.first(.pause), "pause"),
                (keys.first(.forward, .back), "seek"), (keys.first(.faster, .slower), "speed"), (keys.first(.download), "download"),
                (keys.first(.played), "played"), (keys.first(.refreshAll), "refresh"), (keys.first(.filter), "filter"),
                (keys.first(.help), "help"), (keys.first(.quit), "quit"),
            ]
        case .queue:
            hints = [
                (keys.first(.open), "play"), (keys.first(.moveUp, .moveDown), "move"), (keys.first(.delete), "remove"),
                (keys.first(.nextInQueue), "next"), (keys.first(.clearQueue), "clear"), (keys.first(.pause), "pause"),
                (keys.first(.filter), "filter"), (keys.first(.help), "help"), (keys.first(.quit), "quit"),
            ]
        case .downloads:
            hints = [
                (keys.first(.up, .down), "move"), (keys.first(.filter), "filter"), (keys.first(.viewPodcasts), "podcasts"),
                (keys.first(.help), "help"), (keys.first(.quit), "quit"),
            ]
        case .search:
            // Typing a term, the keys are the text field's own.
            if state.search.isEditing { return "type a term  Enter search  Esc results" }
            hints = [
                (keys.first(.add), "subscribe"), (keys.first(.open), "new search"), (keys.first(.url), "URL"),
                (keys.first(.filter), "filter"), (keys.first(.help), "help"), (keys.first(.quit), "quit"),
            ]
        }
        return hints.filter { !$0.0.isEmpty }.map { "\($0.0) \($0.1)" }.joined(separator: "  ")
    }
}
