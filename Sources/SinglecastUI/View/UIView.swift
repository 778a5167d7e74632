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

    private static let tabs: [(UIState.Screen, String)] = [
        (.browse, "1 Podcasts"), (.new, "2 New"), (.queue, "3 Queue"), (.downloads, "4 Downloads"), (.search, "5 Search"),
    ]

    private static func drawTabs(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        var x = area.x
        for (screen, label) in tabs {
            let style: CellStyle = screen == state.screen ? [.reverse, .bold] : []
            x += canvas.put(" \(label) ", x: x, y: area.y, style: style) + 1
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
        switch state.screen {
        case .browse, .new:
            return "Enter play  Space queue  p pause  f/b seek  ]/[ speed  s download  m played  r refresh  / filter  h help  q quit"
        case .queue:
            return "Enter play  K/J move  x remove  n next  c clear  p pause  / filter  h help  q quit"
        case .downloads:
            return "↑/↓ move  / filter  1 podcasts  h help  q quit"
        case .search:
            return state.search.isEditing
                ? "type a term  Enter search  Esc results" : "a subscribe  Enter new search  u URL  / filter  h help  q quit"
        }
    }
}
