import Foundation

/// Where Singlecast keeps its database and episodes.
public enum LibraryLocation {
    /// `$SINGLECAST_HOME`, else `$XDG_DATA_HOME/singlecast`, else `~/.local/share/singlecast`.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["SINGLECAST_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let dataHome = environment["XDG_DATA_HOME"], !dataHome.isEmpty {
            return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent("singlecast")
        }
        let userHome = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return userHome.appendingPathComponent(".local/share/singlecast", isDirectory: true)
    }
}
