#!/bin/sh
# Builds the libFuzzer targets into Fuzz/.build/ with swiftc alone (no SwiftPM, so none of the
# package's dependencies): each target is its entry point in Targets/ compiled with the
# SinglecastKit files it needs, as one module, against libxml2 through Sources/CLibXML2.
#
#   Fuzz/build.sh [TARGET…]   (default: all of feed-parse feed-dates episode-duration opml-reader show-notes)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kit="$root/Sources/SinglecastKit"
out="$root/Fuzz/.build"
mkdir -p "$out"

# The parsers' files are whole folders, so that a file added to them is compiled without a
# change here: every file of Feed/, OPML/ and Support/ whose imports are all modules swiftc has
# without the package (Foundation, Glibc, CLibXML2, Dispatch, Synchronization) and that does not
# use OffPool: a file importing NIO or GRDB, or reading a file off the pool, does I/O
# (FeedLoader, OPMLReader+File) and stays out. The model and the one HTTP helper they use are
# named. CI builds the targets (.ci/run), so a parser that comes to need another
# file fails there, with the compiler naming the missing type, instead of rotting here.
parsing_sources() {
    for file in "$kit"/Feed/*.swift "$kit"/OPML/*.swift "$kit"/Support/*.swift; do
        sed -n 's/^\(@preconcurrency \)\{0,1\}\(internal \|public \|package \)\{0,1\}import \([A-Za-z0-9_]*\).*/\3/p' "$file" |
            grep -qvx 'Foundation\|Glibc\|CLibXML2\|Dispatch\|Synchronization' ||
            grep -q OffPool "$file" || echo "$file"
    done
    echo "$kit/Model/Feed.swift" "$kit/Model/Podcast.swift" "$kit/Model/Episode.swift" \
        "$kit/Model/Transcript.swift" "$kit/HTTP/Redaction.swift"
}

sources() {
    case "$1" in
    feed-parse) parsing_sources; echo "$root/Fuzz/Targets/FeedParseTarget.swift" ;;
    opml-reader) parsing_sources; echo "$root/Fuzz/Targets/OPMLReaderTarget.swift" ;;
    feed-dates) echo "$kit/Feed/FeedDates.swift" "$root/Fuzz/Targets/FeedDatesTarget.swift" ;;
    episode-duration) echo "$kit/Feed/EpisodeDuration.swift" "$root/Fuzz/Targets/EpisodeDurationTarget.swift" ;;
    show-notes) parsing_sources; echo "$root/Fuzz/Targets/ShowNotesTarget.swift" ;;
    *) echo "unknown target: $1 (feed-parse, feed-dates, episode-duration, opml-reader, show-notes)" >&2; exit 64 ;;
    esac
}

[ $# -gt 0 ] || set -- feed-parse feed-dates episode-duration opml-reader show-notes
for target in "$@"; do
    files=$(sources "$target")
    echo "building $out/$target"
    # shellcheck disable=SC2086 # one path per word
    nice -n 19 swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld \
        -swift-version 6 -module-name SinglecastKit \
        -I "$root/Sources/CLibXML2" $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') \
        $(pkg-config --libs libxml-2.0) \
        -module-cache-path "$out/module-cache" \
        $files -o "$out/$target"
    git -C "$root" describe --always --dirty >"$out/$target.version"
done
