#!/usr/bin/env python3
"""`singlecast find` on a large generated library, against SQLite's own FTS5 from Python.

usage: Benchmarks/find.py [--runs N] [--work DIR] [--bin PATH]

The library: 200 podcasts of 500 episodes (100,000), each podcast a copy of
../shared/bench/genfeed.py 500 with its own title and media URLs, and a paragraph of marker
words added to each episode's notes, drawn from a random generator seeded by the episode's
number: `kestrel` and `marmot` each in 10 % of the episodes (both in about 1 %), `ferry` in a
third, `harbour master` in 2 %, words beginning with `lantern` in 1 %. The first ten
episodes of each podcast (2,000) have a one-hour WebVTT transcript: a cue every 4 s of about
ten words drawn (Zipf-like) from 5,000 made-up words, seeded by the episode too. The feeds are
saved with `singlecast episodes FILE`; the transcripts are recorded in the library as
`--with-extras` records them (a completed download and its extras), by SQL.

Printed, from one run on the same machine:
  build   the first `find` on the unindexed library (the index built from nothing, as a whole
          process), against Python's sqlite3 indexing the same text (its own timing of the
          inserts and the commit, without loading the text or starting Python) (titles, notes reduced as
          Singlecast reduces them, the transcripts' runs of cues) into an FTS5 table defined as
          Singlecast's is (contentless, the same tokenizer), interleaved, medians of
          --runs rounds (3 by default); wall time, and the CPU time of each (Python's sqlite3
          writes with a rollback journal and waits for the disk, so its wall time varies with the
          disk, its CPU time with the load);
  size    what indexing adds: the index's tables (their pages, from dbstat) and the growth of
          the database file, against the library it indexes, which is the database and the
          transcripts it saved (the text of both is in the index; the benchmark has no audio),
          and, for comparison, against the database alone;
  queries whole-process medians of `find` (21 rounds, interleaved): two words matching about
          1 % of the episodes, one matching a third, a phrase, a prefix.
"""
import json, os, random, re, shutil, sqlite3, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BIN, GENFEED  # noqa: E402

PODCASTS = 200
EPISODES = 500
TRANSCRIBED = 10
CUES = 900  # one hour, a cue every 4 s
QUERIES = [
    ("two words, ~1 %", ["kestrel", "marmot"]),
    ("one word, ~1/3", ["ferry"]),
    ("phrase", ['"harbour master"']),
    ("prefix", ["lantern*"]),
]


def wall(command, env):
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def wall_and_cpu(command, env):
    """Wall seconds and the child's user + system CPU seconds."""
    before = os.times()
    seconds = wall(command, env)
    after = os.times()
    return seconds, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def index_bytes(path):
    """The bytes of the pages of `find`'s tables (the FTS5 table's shadow tables and its own)."""
    database = sqlite3.connect(path)
    size = database.execute("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'find%' OR name LIKE 'sqlite_autoindex_find%'"
                            ).fetchone()[0]
    database.close()
    return size or 0


def markers(number):
    rnd = random.Random(number)
    words = []
    if rnd.random() < 0.10: words.append("kestrel")
    if rnd.random() < 0.10: words.append("marmot")
    if rnd.random() < 1 / 3: words.append("ferry")
    if rnd.random() < 0.02: words += ["the", "harbour", "master"]
    if rnd.random() < 0.01: words.append(rnd.choice(["lantern", "lanterns", "lanternfish"]))
    return " ".join(words)


def make_feeds(work):
    base = os.path.join(work, "base.xml")
    subprocess.run([sys.executable, GENFEED, str(EPISODES), base], check=True, stdout=subprocess.DEVNULL)
    text = open(base, encoding="utf-8").read()
    feeds = []
    for podcast in range(PODCASTS):
        counter = iter(range(EPISODES))

        def add_markers(match):
            number = podcast * EPISODES + next(counter)
            paragraph = f"<p>Also: {markers(number)}.</p>"
            body = match.group(1)
            if body.startswith("<![CDATA["):
                return f"<description><![CDATA[{paragraph}{body[9:]}</description>"
            return "<description>" + paragraph.replace("<", "&lt;").replace(">", "&gt;") + body + "</description>"

        feed = re.sub(r"<description>(.*?)</description>", add_markers, text.split("<item>", 1)[1], flags=re.S)
        head = text.split("<item>", 1)[0].replace("Synthetic Benchmark Cast", f"Bench Show {podcast}")
        feed = (head + "<item>" + feed).replace("cdn.example.com/audio/", f"cdn.example.com/p{podcast}/audio/")
        path = os.path.join(work, f"feed-{podcast}.xml")
        open(path, "w", encoding="utf-8").write(feed)
        feeds.append(path)
    return feeds


def vocabulary():
    rnd = random.Random(7)
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "qui", "ne", "ba", "sul", "tra", "po", "ge", "fi"]
    words = sorted({"".join(rnd.choice(syllables) for _ in range(rnd.randint(1, 4))) for _ in range(8000)})[:5000]
    rnd.shuffle(words)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    total, cumulative = 0.0, []
    for weight in weights:
        total += weight
        cumulative.append(total)
    return words, cumulative


def transcript(number, words, cumulative):
    rnd = random.Random(number)
    lines = ["WEBVTT", ""]
    cues = []
    for cue in range(CUES):
        text = " ".join(rnd.choices(words, cum_weights=cumulative, k=rnd.randint(7, 13)))
        start, end = cue * 4, cue * 4 + 4
        lines += [f"{start // 3600:02d}:{start % 3600 // 60:02d}:{start % 60:02d}.000 --> "
                  f"{end // 3600:02d}:{end % 3600 // 60:02d}:{end % 60:02d}.000", text, ""]
        cues.append(text)
    return "\n".join(lines), cues


def runs_of(cues, per_run=700):
    """The transcript's documents as Singlecast makes them (FindIndex.runs)."""
    runs, current, count = [], [], 0
    for index, cue in enumerate(cues):
        current.append(cue)
        count += len(cue.encode()) + 1
        if count >= per_run or index == len(cues) - 1:
            runs.append("\n".join(current))
            current, count = [], 0
    return runs


def build_library(work, singlecast):
    home = os.path.join(work, "library")
    env = dict(os.environ, SINGLECAST_HOME=home)
    feeds = make_feeds(work)
    for feed in feeds:
        subprocess.run(singlecast + ["episodes", feed], env=env, stdout=subprocess.DEVNULL, check=True)
    words, cumulative = vocabulary()
    folder = os.path.join(home, "Transcripts")
    os.makedirs(folder, exist_ok=True)
    database = sqlite3.connect(os.path.join(home, "library.sqlite"))
    rows = database.execute(
        "SELECT e.id, e.enclosureURL FROM episode e WHERE e.position <= ? ORDER BY e.id", (TRANSCRIBED,)).fetchall()
    transcripts = {}
    now = "2026-11-26 12:00:00.000"
    for number, (episode, url) in enumerate(rows):
        text, cues = transcript(number, words, cumulative)
        path = os.path.join(folder, f"{episode}.vtt")
        open(path, "w", encoding="utf-8").write(text)
        transcripts[episode] = cues
        cursor = database.execute(
            "INSERT INTO download (enclosureURL, state, receivedBytes, file, podcastTitle, episodeTitle, updatedAt) "
            "VALUES (?, 'completed', 0, ?, 'Bench', ?, ?)", (url, os.path.join(folder, f"{episode}.mp3"), str(episode), now))
        database.execute(
            "INSERT INTO downloadExtra (downloadId, kind, url, type, file, bytes, updatedAt) "
            "VALUES (?, 'transcript', ?, 'text/vtt', ?, ?, ?)", (cursor.lastrowid, url + ".vtt", path, len(text), now))
    database.commit()
    database.close()
    return home, env, transcripts, feeds


def reference_text(work, singlecast, env, transcripts, feeds):
    """The text Singlecast indexes, for Python: titles, notes as `episodes --json` reduces them
    (without the list of links, which the index leaves out), and the transcripts' runs."""
    documents = []
    for feed in feeds:
        listing = subprocess.run(singlecast + ["episodes", feed, "--json"], env=env,
                                 capture_output=True, check=True, text=True).stdout
        for episode in json.loads(listing)["episodes"]:
            notes = episode["description"] or ""
            notes = "\n".join(line for line in notes.split("\n\n") if not re.match(r"\[\d+\] ", line))
            documents.append((episode["title"], notes.replace("\n\n", "\n"), None))
    for cues in transcripts.values():
        documents += [(None, None, run) for run in runs_of(cues)]
    path = os.path.join(work, "reference.json")
    json.dump(documents, open(path, "w"))
    return path


PYTHON_INDEX = """
import json, sqlite3, sys, time
documents = json.load(open(sys.argv[1]))
database = sqlite3.connect(sys.argv[2])
start = time.perf_counter()
cpu = time.process_time()
database.execute("CREATE VIRTUAL TABLE t USING fts5(title, notes, transcript, content='', "
                 "tokenize='unicode61 remove_diacritics 2')")
database.executemany("INSERT INTO t (rowid, title, notes, transcript) VALUES (?, ?, ?, ?)",
                     ((number + 1, *document) for number, document in enumerate(documents)))
database.commit()
database.close()
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def main():
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    work = args[args.index("--work") + 1] if "--work" in args else tempfile.mkdtemp(prefix="singlecast-find-")
    binary = args[args.index("--bin") + 1] if "--bin" in args else os.path.join(BIN, "singlecast")
    singlecast = [binary]
    os.makedirs(work, exist_ok=True)
    print(f"building the library in {work} …", file=sys.stderr)
    home, env, transcripts, feeds = build_library(work, singlecast)
    reference = reference_text(work, singlecast, env, transcripts, feeds)
    database = os.path.join(home, "library.sqlite")
    pristine = os.path.join(work, "unindexed.sqlite")
    shutil.copyfile(database, pristine)
    before = os.path.getsize(pristine)
    transcript_bytes = sum(os.path.getsize(os.path.join(home, "Transcripts", name))
                           for name in os.listdir(os.path.join(home, "Transcripts")))

    build_rounds = []
    for number in range(runs):
        def ours():
            shutil.copyfile(pristine, database)
            return wall_and_cpu(singlecast + ["find", "kestrel", "marmot"], env)

        def theirs():
            target = os.path.join(work, "python.sqlite")
            if os.path.exists(target): os.remove(target)
            # Its own figure: the indexing alone, without loading the text or starting Python.
            printed = subprocess.run([sys.executable, "-c", PYTHON_INDEX, reference, target], check=True,
                                     capture_output=True, text=True).stdout
            return tuple(float(figure) for figure in printed.split())

        pair = (ours(), theirs()) if number % 2 == 0 else tuple(reversed((theirs(), ours())))
        build_rounds.append(pair)
    after = os.path.getsize(database)
    index = index_bytes(database) - index_bytes(pristine)
    documents = sum(1 for _ in json.load(open(reference)))

    query_rounds = {name: [] for name, _ in QUERIES}
    counts = {}
    for name, words in QUERIES:
        listing = subprocess.run(singlecast + ["find"] + words + ["--limit", "1"], env=env,
                                 capture_output=True, text=True, check=True).stdout
        counts[name] = listing.strip().split("\n")[-1]
    for _ in range(21):
        for name, words in QUERIES:
            query_rounds[name].append(wall(singlecast + ["find"] + words, env))

    load = os.getloadavg()
    print(f"\nfind.py: {PODCASTS} podcasts, {PODCASTS * EPISODES} episodes, {len(transcripts)} one-hour transcripts "
          f"({transcript_bytes / 1e6:.0f} MB), {documents} documents; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    def median(figure):
        return statistics.median(figure(r) for r in build_rounds)

    print(f"  build: singlecast find (first, whole process) {median(lambda r: r[0][0]):7.2f} s, {median(lambda r: r[0][1]):.2f} s CPU;"
          f"  python3 sqlite3 FTS5 {median(lambda r: r[1][0]):7.2f} s, {median(lambda r: r[1][1]):.2f} s CPU;"
          f"  {median(lambda r: r[0][0] / r[1][0]):.2f}x wall, {median(lambda r: r[0][1] / r[1][1]):.2f}x CPU"
          f" (medians of {runs} interleaved rounds; target 1.5x)")
    library = before + transcript_bytes
    print(f"  size:  the library: database {before / 1e6:.1f} MB + transcripts {transcript_bytes / 1e6:.1f} MB = {library / 1e6:.1f} MB;"
          f" the index {index / 1e6:.1f} MB (database file +{(after - before) / 1e6:.1f} MB):"
          f" +{index / library * 100:.0f} % of the library (target 40 %), +{index / before * 100:.0f} % of the database alone")
    for name, words in QUERIES:
        median = statistics.median(query_rounds[name]) * 1000
        print(f"  query: find {' '.join(words):<20} {median:7.1f} ms  ({name}; {counts[name]})")


if __name__ == "__main__":
    main()
