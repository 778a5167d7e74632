#!/usr/bin/env python3
"""A second opinion on every field: `singlecast episodes FILE --json` against Python feedparser 6.0.14.

usage: Benchmarks/feedparser_compare.py [--items N] [--verbose] [FILE...]

Compares, field by field, the podcast title, the episode count and, per episode (in document
order), the title, guid, published date, enclosure URL, length and type, and duration, over
every feed in Fixtures/ (and Fixtures/realistic/) that both read as a feed, plus a feed made by
../shared/bench/genfeed.py (N items, default 2000). Prints the agreement per field, overall and
for well-formed and ill-formed feeds apart, and every disagreement; a disagreement listed in
KNOWN below, where Singlecast is right and feedparser wrong, is counted apart with its reason.
Needs `pip install feedparser==6.0.14` and a built `singlecast` (release, else debug).
"""
import calendar, glob, json, os, re, subprocess, sys, tempfile

import feedparser
import xml.dom.minidom

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENFEED = os.path.join(ROOT, "..", "shared", "bench", "genfeed.py")
FIELDS = ["podcast title", "episode count", "title", "guid", "published", "enclosure url",
          "enclosure length", "enclosure type", "duration"]

# Disagreements where Singlecast is right and feedparser wrong: (fixture path relative to
# Fixtures/, episode number or None for the podcast, field) -> reason.
KNOWN = {}


def known(fixture, numbers, field, reason):
    for number in numbers:
        KNOWN[(fixture, number, field)] = reason


MEDIA_RSS = ("feedparser 6 keeps media:content in media_content and never makes it an enclosure; "
             "the issue asks for it when an item has no <enclosure>")
TITLE_FALLBACK = "feedparser leaves a missing title empty; Singlecast never shows an empty title (issue 9)"
FORBIDDEN = ("XML 1.0 forbids these control characters (raw or as &#x1;, &#0;, &#xFFFE;); "
             "feedparser keeps them in the text, Singlecast drops them")
SEMICOLON = "feedparser turns the bare '&A ' into the entity reference '&A;', adding a ';' the feed never had"
AFTER_ROOT = ("a second copy of the feed appended after </rss> (a server fault): the document ends with its "
              "root element; feedparser reads the copy's item as another episode")
MISMATCH = ("a misspelled end tag (</titel>) and stray ones (</b>, </p>) in the notes: feedparser merges the "
            "first item into the channel and loses it; Singlecast closes the misspelled element and keeps all three")
OPEN_CDATA = ("an unterminated CDATA section: feedparser swallows the rest of the feed into one description; "
              "Singlecast ends the section with its element and keeps the items after it")
CUT_OFF = ("a document cut off inside an item: feedparser keeps the partial item (its guid or title cut short, "
           "so a duplicate episode once the feed is whole); Singlecast keeps the complete items, the cut one only "
           "when its guid, link or enclosure arrived whole, and warns")
CUT_IN_TAG = ("a document cut off inside an <enclosure> tag after its url attribute, quotes closed: Singlecast keeps "
              "that URL, feedparser drops the whole tag")
DECLARED = ("bytes invalid in the declared encoding (EUC-JP, Shift_JIS): Singlecast reads the document in that "
            "encoding with U+FFFD for those bytes; feedparser drops the declared encoding and garbles every letter")
SURROGATE = "a lone surrogate in a UTF-16 feed: Singlecast puts U+FFFD there and reads on; feedparser reads nothing"
PERCENT = ("the same URL: Singlecast writes it percent-encoded as RFC 3986 requires (spaces, non-ASCII, "
           "a stray %, brackets in the path), feedparser leaves the raw text")
CP1252 = ("bytes that are not UTF-8 in a UTF-8 feed: they are Windows-1252 (the usual paste), "
          "feedparser decodes the whole document as another encoding and garbles every accented letter")
XML_BASE = "xml:base applies to every URL, enclosures too (XML Base 1.0); feedparser leaves enclosure URLs relative"
XML_BASE_LEAK = ("the xml:base of the item before does not apply to this one: feedparser carries it over "
                 "(and resolves a guid that is not a permalink)")
ZONES = "RFC 822 zone names: BST is British Summer Time (+01:00) and CET +01:00; feedparser reads them as UTC"
for number in [1, 2, 4]:
    for field in ("enclosure url", "enclosure length", "enclosure type"):
        known("feeds/media-rss.xml", [number], field, MEDIA_RSS)
known("feeds/missing-titles.xml", [2, 3, 4, 5, 7], "title", TITLE_FALLBACK)
known("feeds/missing-titles.xml", [None], "podcast title", TITLE_FALLBACK)
known("feeds/podcast-without-title.xml", [None], "podcast title", TITLE_FALLBACK)
known("feeds/control-characters.xml", [1], "title", FORBIDDEN)
known("feeds/recover-illegal-character-reference.xml", [1], "title", FORBIDDEN)
known("realistic/ill-control-characters.xml", [4], "title", FORBIDDEN)
known("realistic/ill-illegal-character-reference.xml", [7], "title", FORBIDDEN)
known("feeds/recover-bare-ampersand.xml", [1], "title", SEMICOLON)
known("realistic/ill-bare-ampersands.xml", [6], "title", SEMICOLON)
known("feeds/recover-content-after-root.xml", [None], "episode count", AFTER_ROOT)
known("feeds/recover-mismatched-end-tag.xml", [None], "podcast title", MISMATCH)
known("feeds/recover-mismatched-end-tag.xml", [None], "episode count", MISMATCH)
known("feeds/recover-mismatched-end-tag.xml", [1, 2], "title", MISMATCH)
known("feeds/recover-mismatched-end-tag.xml", [1, 2], "guid", MISMATCH)
known("feeds/recover-unterminated-cdata.xml", [None], "episode count", OPEN_CDATA)
known("feeds/recover-unterminated-cdata.xml", [1], "guid", OPEN_CDATA)
known("realistic/ill-unterminated-cdata.xml", [None], "episode count", OPEN_CDATA)
known("feeds/truncated.xml", [None], "episode count", CUT_OFF)
known("realistic/ill-truncated-download.xml", [None], "episode count", CUT_OFF)
known("feeds/urls-needing-escapes.xml", [1, 3, 4], "enclosure url", PERCENT)
known("feeds/cut-inside-tag-before-first-item.xml", [1], "enclosure url", CUT_IN_TAG)
for fixture in ("feeds/recover-invalid-euc-jp.xml", "feeds/recover-invalid-shift-jis.xml"):
    known(fixture, [None], "podcast title", DECLARED)
    known(fixture, [1, 2, 3], "title", DECLARED)
known("feeds/recover-invalid-utf16.xml", [None], "podcast title", SURROGATE)
known("feeds/recover-invalid-utf16.xml", [None], "episode count", SURROGATE)
known("feeds/utf8-with-cp1252-bytes.xml", [None], "podcast title", CP1252)
known("feeds/utf8-with-cp1252-bytes.xml", [1], "title", CP1252)
known("realistic/ill-cp1252-bytes-in-utf8.xml", [None], "podcast title", CP1252)
known("realistic/ill-cp1252-bytes-in-utf8.xml", [2, 3, 5], "title", CP1252)
known("feeds/xml-base.xml", [1, 2], "enclosure url", XML_BASE)
known("feeds/relative-permalink-guid.xml", [4], "guid", XML_BASE_LEAK)
known("realistic/hosting-platform.xml", [1, 8, 9, 16, 17], "published", ZONES)


def singlecast_binary():
    for configuration in ("release", "debug"):
        path = os.path.join(ROOT, ".build", configuration, "singlecast")
        if os.path.exists(path):
            return path
    sys.exit("build singlecast first: swift build -c release --static-swift-stdlib --product singlecast")


def read_singlecast(binary, path, home):
    result = subprocess.run([binary, "episodes", path, "--json"], capture_output=True, text=True,
                            env=dict(os.environ, SINGLECAST_HOME=home))
    if result.returncode != 0:
        return None, result.stderr.strip()
    return json.loads(result.stdout), result.stderr.strip()


def parse_duration(text):
    """itunes:duration as Singlecast reads it: S, M:S or H:M:S, a fraction dropped."""
    if text is None:
        return None
    parts = text.strip().split(":")
    if not 1 <= len(parts) <= 3:
        return None
    seconds = 0
    for index, part in enumerate(parts):
        if index == len(parts) - 1 and re.fullmatch(r"\d+\.\d*", part):
            part = part.split(".")[0]
        if not re.fullmatch(r"\d{1,9}", part):
            return None
        seconds = seconds * 60 + int(part)
    return seconds


def iso(parsed):
    return None if parsed is None else \
        __import__("datetime").datetime.fromtimestamp(calendar.timegm(parsed), __import__("datetime").timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%SZ")


def strip_fraction(date):
    return None if date is None else re.sub(r"\.\d+Z$", "Z", date)


def feedparser_view(path):
    parsed = feedparser.parse(path)
    entries = []
    for entry in parsed.entries:
        enclosure = entry.get("enclosures") or []
        enclosure = enclosure[0] if enclosure else {}
        length = enclosure.get("length")
        try:
            length = int(str(length).strip()) if length not in (None, "") else None
        except ValueError:
            length = None
        entries.append({
            "title": entry.get("title"),
            "guid": entry.get("id"),
            "published": iso(entry.get("published_parsed") or entry.get("updated_parsed")),
            "enclosure url": enclosure.get("href"),
            "enclosure length": length,
            "enclosure type": enclosure.get("type") or None,
            "duration": parse_duration(entry.get("itunes_duration")),
        })
    return parsed, {"podcast title": parsed.feed.get("title"), "episodes": entries}


def singlecast_view(document):
    entries = []
    for episode in document["episodes"]:
        enclosure = episode.get("enclosure") or {}
        entries.append({
            "title": episode.get("title"),
            "guid": episode.get("guid"),
            "published": strip_fraction(episode.get("published")),
            "enclosure url": enclosure.get("url"),
            "enclosure length": enclosure.get("length"),
            "enclosure type": enclosure.get("type"),
            "duration": episode.get("duration"),
        })
    return {"podcast title": document["title"], "episodes": entries}


def normalize(field, value):
    """Both sides as a person would compare them: text without surrounding whitespace, an
    empty value as none."""
    if isinstance(value, str):
        value = " ".join(value.split()) if field in ("title", "podcast title") else value.strip()
        return value or None
    return value


def is_well_formed(path):
    try:
        xml.dom.minidom.parse(path)
        return True
    except Exception:
        return False


def compare(path, name, singlecast, parsed_view):
    """Yields (field, episode number or None, singlecast value, feedparser value, agrees)."""
    ours, theirs = singlecast, parsed_view
    a, b = normalize("podcast title", ours["podcast title"]), normalize("podcast title", theirs["podcast title"])
    yield "podcast title", None, a, b, a == b
    yield "episode count", None, len(ours["episodes"]), len(theirs["episodes"]), \
        len(ours["episodes"]) == len(theirs["episodes"])
    for number, (mine, other) in enumerate(zip(ours["episodes"], theirs["episodes"]), start=1):
        for field in FIELDS[2:]:
            a, b = normalize(field, mine[field]), normalize(field, other[field])
            yield field, number, a, b, a == b


def main():
    args = sys.argv[1:]
    verbose = "--verbose" in args
    items = 2000
    if "--items" in args:
        items = int(args[args.index("--items") + 1])
        del args[args.index("--items"):args.index("--items") + 2]
    files = [a for a in args if not a.startswith("--")]
    binary = singlecast_binary()
    work = tempfile.mkdtemp(prefix="feedparser-compare-")
    if not files:
        files = sorted(glob.glob(os.path.join(ROOT, "Fixtures", "**", "*.xml"), recursive=True))
        files = [f for f in files if "/opml/" not in f]
        generated = os.path.join(work, f"genfeed-{items}.xml")
        subprocess.run([sys.executable, GENFEED, str(items), generated], check=True)
        files.append(generated)
    totals = {kind: {field: [0, 0, 0] for field in FIELDS} for kind in ("well-formed", "ill-formed")}
    disagreements, listed, skipped = [], [], []
    for path in files:
        name = os.path.relpath(path, os.path.join(ROOT, "Fixtures")) if path.startswith(ROOT) else os.path.basename(path)
        document, stderr = read_singlecast(binary, path, os.path.join(work, "home"))
        parsed, theirs = feedparser_view(path)
        if document is None:
            has_feed = bool(parsed.entries) or bool(parsed.feed.get("title"))
            skipped.append((name, stderr.splitlines()[-1] if stderr else "", "feedparser reads it" if has_feed else "neither reads it"))
            continue
        kind = "well-formed" if is_well_formed(path) else "ill-formed"
        for field, number, mine, other, agrees in compare(path, name, singlecast_view(document), theirs):
            counts = totals[kind][field]
            reason = KNOWN.get((name, number, field))
            if agrees:
                counts[0] += 1
            elif reason:
                counts[2] += 1
                listed.append((name, number, field, mine, other, reason))
            else:
                counts[1] += 1
                disagreements.append((name, number, field, mine, other))
    print(f"{len(files)} feeds ({len(skipped)} not read as feeds by Singlecast)\n")
    print(f"{'field':<18} {'agree':>7} {'differ':>7} {'listed':>7} {'agreement':>10}")
    grand = [0, 0, 0]
    for kind in ("well-formed", "ill-formed"):
        sums = [0, 0, 0]
        print(f"-- {kind}")
        for field in FIELDS:
            agree, differ, known_count = totals[kind][field]
            share = 100.0 * agree / max(agree + differ, 1)
            print(f"{field:<18} {agree:7d} {differ:7d} {known_count:7d} {share:9.2f}%")
            sums = [s + c for s, c in zip(sums, totals[kind][field])]
        print(f"{'all fields':<18} {sums[0]:7d} {sums[1]:7d} {sums[2]:7d} {100.0 * sums[0] / max(sums[0] + sums[1], 1):9.2f}%")
        grand = [g + s for g, s in zip(grand, sums)]
    print(f"\nOverall agreement outside the listed cases: {100.0 * grand[0] / max(grand[0] + grand[1], 1):.2f}% "
          f"({grand[0]} of {grand[0] + grand[1]} fields; {grand[2]} listed)")
    if disagreements:
        print("\nDisagreements (singlecast | feedparser):")
        for name, number, field, mine, other in disagreements:
            where = f"#{number}" if number else "feed"
            print(f"  {name} {where} {field}: {mine!r} | {other!r}")
    if listed and verbose:
        print("\nListed disagreements (Singlecast right):")
        for name, number, field, mine, other, reason in listed:
            where = f"#{number}" if number else "feed"
            print(f"  {name} {where} {field}: {mine!r} | {other!r}\n      {reason}")
    if skipped:
        print("\nNot compared (Singlecast says it is not a feed):")
        for name, message, opinion in skipped:
            print(f"  {name}: {message} ({opinion})")


if __name__ == "__main__":
    main()
