/// A file-system operation that failed, as a value (the front ends word it). The raw values
/// are what `--json` and the stored failures carry.
public enum FileOperation: String, Codable, Sendable {
    case createDirectory = "create directory"
    case create
    case open
    case write
    /// Appending a transfer's bytes to its partial file.
    case writeTo = "write to"
    case flush
    case moveIntoPlace = "move into place"
    case truncate
}
