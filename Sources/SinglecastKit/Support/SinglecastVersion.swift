/// The version of Singlecast: what `singlecast --version` prints and the `User-Agent` names.
public enum SinglecastVersion {
    public static let current = "1.0"
}
