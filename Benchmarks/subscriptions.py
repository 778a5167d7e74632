#!/usr/bin/env python3
"""Subscriptions: singlecast against gPodder's gpo and newsboat on a world of 200 feeds.

usage: Benchmarks/subscriptions.py [--runs N] [--tools a,b] [--keep] [--roundtrip]

A world of 200 feeds from ../shared/bench/genfeed.py (20 to 2,000 items, about 80 MB), served by
a loopback nginx with ETag and Last-Modified. Each round, in turn for every tool, each into a
fresh home:
  cold       gpo import OPML / newsboat -x reload (reload-threads 4, fresh cache) / singlecast import OPML
  unchanged  gpo update / newsboat -x reload / singlecast update (all 304)
  changed    5 new items put at the top of 20 feeds, then each tool's update
plus xmllint --stream --noout over all 200 files, the parsing floor. Printed: medians of wall
seconds, CPU seconds and peak RSS, and the median ratios to newsboat, gpo and the floor.

--roundtrip: singlecast import of gPodder's own export (Fixtures/opml/gpodder-3.11-export.opml's
shape, pointed at the local world), singlecast export, gpo import of that export, and a check
that gpo subscribed to the same feeds.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BIN, GENFEED, NGINX_CONF, build, measure  # noqa: E402

FEEDS = 200
CHANGED = 20


def sizes():
    """20 to 2,000 items, 20 * 100^((i/199)^p) with p chosen so that all of them come to about
    80 MB (genfeed writes about 1.3 kB an item): many small feeds, a few large ones."""
    def world(p):
        return [int(20 * 100 ** ((i / (FEEDS - 1)) ** p)) for i in range(FEEDS)]
    low, high = 1.0, 10.0
    for _ in range(40):
        p = (low + high) / 2
        low, high = (p, high) if sum(world(p)) * 1285 > 80e6 else (low, p)
    return world((low + high) / 2)


def generate(path, items):
    subprocess.run([sys.executable, GENFEED, str(items), path], check=True, stdout=subprocess.DEVNULL)


def new_items(name, count):
    """`count` items newer than any of genfeed's (which end at 2024-06-01 12:00), with guids of
    their own, shaped like genfeed's."""
    items = []
    for k in range(count, 0, -1):
        items.append(
            f"<item><title>{name} extra {k}</title><link>https://example.com/{name}/extra/{k}</link>"
            f'<guid isPermaLink="false">{name}-extra-{k}</guid><pubDate>Sun, 02 Jun 2024 {k:02d}:00:00 +0000</pubDate>'
            f"<description>Extra episode {k} of {name}.</description>"
            f'<enclosure url="https://cdn.example.com/{name}/extra-{k}.mp3" length="{1000000 + k}" type="audio/mpeg"/>'
            f"<itunes:duration>{600 + k}</itunes:duration></item>\n")
    return "".join(items).encode()


def opml(port, names):
    outlines = "\n".join(
        f'    <outline type="rss" text="{n}" title="{n}" xmlUrl="http://127.0.0.1:{port}/{n}.xml"/>' for n in names)
    return f'<?xml version="1.0"?>\n<opml version="2.0"><head><title>world</title></head><body>\n{outlines}\n</body></opml>\n'


class World:
    def __init__(self, work):
        self.work = work
        self.www = os.path.join(work, "www")
        os.makedirs(self.www)
        os.makedirs(os.path.join(work, "tmp"))
        self.port = 19000 + os.getpid() % 1000
        self.sizes = sizes()
        self.names = [f"feed{i:03d}" for i in range(FEEDS)]
        for name, items in zip(self.names, self.sizes):
            generate(self.path(name), items)
        self.changed = self.names[::FEEDS // CHANGED][:CHANGED]
        self.originals = {}
        self.opml = os.path.join(work, "world.opml")
        open(self.opml, "w").write(opml(self.port, self.names))
        self.urls = os.path.join(work, "urls")
        open(self.urls, "w").write("".join(f"http://127.0.0.1:{self.port}/{n}.xml\n" for n in self.names))
        conf = os.path.join(work, "nginx.conf")
        open(conf, "w").write(NGINX_CONF.format(work=work, port=self.port).replace("root {work}/www;".format(work=work),
                                                                                   "root {}; etag on;".format(self.www)))
        subprocess.run(["nginx", "-t", "-q", "-c", conf, "-p", work], check=True)
        self.nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        total = sum(os.path.getsize(self.path(n)) for n in self.names)
        print(f"world: {FEEDS} feeds, {min(self.sizes)} to {max(self.sizes)} items, {total / 1e6:.1f} MB, "
              f"served by nginx on 127.0.0.1:{self.port}")

    def path(self, name):
        return os.path.join(self.www, name + ".xml")

    def change(self, extra):
        """Puts `extra` new items at the top of each changed feed, the rest of it untouched, as a
        publisher does (0 restores the feeds); a later mtime, so validators change."""
        for name in self.changed:
            path = self.path(name)
            if name not in self.originals:
                self.originals[name] = open(path, "rb").read()
            text = self.originals[name]
            if extra:
                first = text.index(b"<item>")
                text = text[:first] + new_items(name, extra) + text[first:]
            open(path, "wb").write(text)
            now = time.time() + (1 if extra else 2)
            os.utime(path, (now, now))

    def stop(self):
        self.nginx.terminate()
        self.nginx.wait()


def tools(world, home):
    """Per tool: (cold command, update command, environment), each tool in its own home."""
    singlecast = os.path.join(BIN, "singlecast")
    sc_env = dict(os.environ, SINGLECAST_HOME=os.path.join(home, "singlecast"))
    gpo_env = dict(os.environ, GPODDER_HOME=os.path.join(home, "gpo"), GPODDER_DOWNLOAD_DIR=os.path.join(home, "gpo-dl"),
                   HOME=os.path.join(home, "gpo-home"))
    nb_home = os.path.join(home, "newsboat")
    nb_env = dict(os.environ, HOME=nb_home)
    nb = ["newsboat", "-u", world.urls, "-c", os.path.join(nb_home, "cache.db"), "-C", os.path.join(nb_home, "config"),
          "-x", "reload"]
    return {
        "newsboat": (nb, nb, nb_env),
        "gpo": (["gpo", "import", world.opml], ["gpo", "update"], gpo_env),
        "singlecast": ([singlecast, "import", world.opml], [singlecast, "update"], sc_env),
    }


def fresh_home(home):
    shutil.rmtree(home, ignore_errors=True)
    for sub in ("singlecast", "gpo", "gpo-dl", "gpo-home", "newsboat"):
        os.makedirs(os.path.join(home, sub))
    open(os.path.join(home, "newsboat", "config"), "w").write("reload-threads 4\n")


def report(title, rows, names, references):
    print(f"\n{title}")
    for name in names:
        figures = [r[name] for r in rows]
        wall, cpu, rss = (statistics.median(f[i] for f in figures) for i in range(3))
        line = f"  {name:<12} {wall:8.3f} s  {cpu:8.3f} s cpu  {rss:7.1f} MiB"
        for reference in references:
            if reference != name and reference in rows[0]:
                ratio = statistics.median(r[name][0] / r[reference][0] for r in rows)
                line += f"  {ratio:5.2f}x {reference}"
        print(line)


def run(runs, work, only):
    world = World(work)
    home = os.path.join(work, "home")
    cold, unchanged, changed, floor = [], [], [], []
    try:
        for round_number in range(runs):
            print(f"round {round_number + 1} of {runs}", flush=True)
            fresh_home(home)
            commands = {name: c for name, c in tools(world, home).items() if not only or name in only}
            floor.append({"xmllint": measure(["xmllint", "--stream", "--noout"] + [world.path(n) for n in world.names])})
            cold.append({name: measure(c[0], env=c[2]) for name, c in commands.items()})
            # newsboat's first reload after a fresh cache sends no conditional requests: one
            # untimed update each, so that every tool's next one starts from its validators.
            for c in commands.values():
                subprocess.run(c[1], env=c[2], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            unchanged.append({name: measure(c[1], env=c[2]) for name, c in commands.items()})
            world.change(5)
            changed.append({name: measure(c[1], env=c[2]) for name, c in commands.items()})
            world.change(0)
        names = [name for name in ["newsboat", "gpo", "singlecast"] if not only or name in only]
        report("xmllint --stream --noout over all 200 files (the parsing floor)", floor, ["xmllint"], [])
        for row, f in zip(cold, floor):
            row["xmllint"] = f["xmllint"]
        report("cold: import of the OPML (fresh homes)", cold, names, ["newsboat", "xmllint"])
        report("unchanged: update again (all 304)", unchanged, names, ["gpo", "newsboat"])
        report(f"changed: {CHANGED} feeds with 5 more items, then update", changed, names, ["newsboat", "gpo"])
    finally:
        world.stop()


def roundtrip(work):
    """singlecast import of gPodder's export, singlecast export, gpo import of that: same feeds?"""
    world = World(work)
    try:
        home = os.path.join(work, "rt")
        fresh_home(home)
        commands = tools(world, home)
        env_sc, env_gpo = commands["singlecast"][2], commands["gpo"][2]
        singlecast = os.path.join(BIN, "singlecast")
        # gPodder's own export of the world first, as a user moving over would have it.
        subprocess.run(["gpo", "import", world.opml], env=env_gpo, check=True, stdout=subprocess.DEVNULL)
        gpodder_export = os.path.join(work, "from-gpodder.opml")
        subprocess.run(["gpo", "export", gpodder_export], env=env_gpo, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([singlecast, "import", gpodder_export], env=env_sc, check=True, stdout=subprocess.DEVNULL)
        ours = os.path.join(work, "from-singlecast.opml")
        subprocess.run([singlecast, "export", ours], env=env_sc, check=True)
        fresh = os.path.join(work, "rt2")
        fresh_home(fresh)
        env_gpo2 = tools(world, fresh)["gpo"][2]
        subprocess.run(["gpo", "import", ours], env=env_gpo2, check=True, stdout=subprocess.DEVNULL)
        listed = subprocess.run(["gpo", "list"], env=env_gpo2, check=True, capture_output=True, text=True).stdout
        got = {line.split()[-1] for line in listed.splitlines() if "http" in line}
        want = {f"http://127.0.0.1:{world.port}/{n}.xml" for n in world.names}
        print(f"roundtrip: gpo import of singlecast's export subscribed to {len(got & want)} of {len(want)} feeds"
              + ("" if got == want else f"; missing {sorted(want - got)[:5]}, extra {sorted(got - want)[:5]}"))
    finally:
        world.stop()


def main():
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    build()
    work = tempfile.mkdtemp(prefix="singlecast-subs-")
    os.chmod(work, 0o755)  # nginx's workers run as another user
    try:
        if "--roundtrip" in args:
            roundtrip(work)
        else:
            run(runs, work, args[args.index("--tools") + 1].split(",") if "--tools" in args else None)
    finally:
        if "--keep" not in args:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
