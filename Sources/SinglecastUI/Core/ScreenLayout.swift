/// Where each part of the screen goes, for the view that draws it and the update that keeps
/// the selection in sight: one owner of the layout.
struct ScreenLayout {
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init(_ state: UIState) {
        self.init(width: state.width, height: state.height)
    }

    /// The top row: the screens and their number keys.
    var tabs: Rect { Rect(x: 0, y: 0, width: width, height: 1) }
    /// Between the tabs and the three lines at the bottom.
    var body: Rect { Rect(x: 0, y: 1, width: width, height: height - 4) }
    /// A line typed, or the last news.
    var status: Rect { Rect(x: 0, y: height - 3, width: width, height: 1) }
    var nowPlaying: Rect { Rect(x: 0, y: height - 2, width: width, height: 1) }
    var hints: Rect { Rect(x: 0, y: height - 1, width: width, height: 1) }

    /// The podcasts, episodes and details panes.
    var panes: [Rect] { body.columns([0.28, 0.42, 0.30]) }

    /// How many rows of a list are shown: every row of its area but its title (on the search
    /// screen, the term) and its column headers.
    var listRows: Int { max(1, body.height - 2) }
}
