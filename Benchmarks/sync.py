#!/usr/bin/env python3
"""Sync with a gpodder-API server: Singlecast side by side with gPodder's mygpoclient.

usage: Benchmarks/sync.py [--actions N] [--runs N] [--memory-actions N]

A small gpodder.net API v2 server (login, devices, subscriptions, episode actions; any user with
the password `bench`) runs in this process on 127.0.0.1, with a feed of N episodes. Then, in
interleaved rounds (each singlecast round on a fresh copy of a library subscribed to the feed, so
that every round applies or sends everything):

  receive: N episode actions waiting on the server (one per episode of the feed):
           mygpoclient's download_episode_actions(since=0)  vs  `singlecast sync` (which also
           logs in, reads the subscriptions and applies the actions to the library);
  send:    N local actions (`played --all` on the feed):
           mygpoclient's upload_episode_actions (one request)  vs  `singlecast sync` (batches of
           at most 1,000).

Last, the bounded-memory check: `singlecast sync` receiving --memory-actions actions (default
100,000, a body of about 20 MB) for episodes it does not know yet (all kept to apply later).
Printed are medians of wall seconds, CPU seconds and peak RSS, and the ratios to mygpoclient.

How the two sides are timed: the same way, each as a whole process from its start to its exit
under /usr/bin/time (the ratios compare these). For mygpoclient that is python3 starting,
importing mygpoclient, and the call; for singlecast, the process starting, opening the library,
the HTTP client, every request the sync makes and applying what came. mygpoclient's call alone
(timed inside its process around the download or upload) is printed beside it for information,
with the cost of starting each program and exiting without any work (`python3` importing
mygpoclient's api; `singlecast sync --forget` on an empty library, which opens the library and
makes no request), and how many requests each sync made.
Needs /usr/bin/python3 with python3-mygpoclient, /usr/bin/time, and .build/release/singlecast
(`swift build -c release --product singlecast`).
"""
import argparse, base64, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINGLECAST = os.environ.get("SINGLECAST_BIN", os.path.join(ROOT, ".build", "release", "singlecast"))
PYTHON = "/usr/bin/python3"
PASSWORD = "bench"


class Store:
    def __init__(self):
        self.lock = threading.Lock()
        self.clock = 1_700_000_000
        self.actions = {}        # user -> [(stamp, bytes of the JSON object)]
        self.subscriptions = {}  # (user, device) -> [(stamp, url, added)]
        self.sessions = {}
        self.feed = b""
        self.requests = {}       # (user, "singlecast" or "mygpoclient") -> number of API requests


STORE = Store()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Answers go out at once: with Nagle's algorithm, a small answer waits for the client's
    # delayed ACK (40 ms a request), which would measure the server, not the clients.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def user(self, parts):
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            name, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            if password == PASSWORD:
                return name
        for cookie in self.headers.get("Cookie", "").split(";"):
            key, _, value = cookie.strip().partition("=")
            if key == "sessionid" and value in STORE.sessions:
                return STORE.sessions[value]
        return None

    def send(self, status, body, headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response_only(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self._headers_buffer.append(b"\r\n")
        self.wfile.write(b"".join(self._headers_buffer) + data)
        self._headers_buffer = []

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")

    def handle_request(self, method):
        url = urlparse(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else b""
        if url.path == "/feed.xml":
            self.send(200, STORE.feed, [("Content-Type", "application/rss+xml")])
            return
        parts = [p for p in url.path.split("/") if p]
        user = self.user(parts)
        if user is None:
            self.send(401, {}, [("WWW-Authenticate", 'Basic realm="bench"')])
            return
        since = int(parse_qs(url.query).get("since", ["0"])[0])
        kind = parts[2] if len(parts) > 2 else ""
        with STORE.lock:
            client = "singlecast" if self.headers.get("User-Agent", "").startswith("Singlecast") else "mygpoclient"
            STORE.requests[(user, client)] = STORE.requests.get((user, client), 0) + 1
            if kind == "auth":
                session = uuid.uuid4().hex
                STORE.sessions[session] = user
                self.send(200, {}, [("Set-Cookie", f"sessionid={session}; Path=/")])
            elif kind == "devices" and method == "GET":
                self.send(200, [])
            elif kind == "devices":
                self.send(200, {})
            elif kind == "subscriptions" and method == "GET":
                changes = [c for c in STORE.subscriptions.get((user, parts[4]), []) if c[0] >= since]
                self.send(200, {"add": [c[1] for c in changes if c[2]], "remove": [c[1] for c in changes if not c[2]],
                                "timestamp": STORE.clock})
            elif kind == "subscriptions":
                STORE.clock += 1
                changes = json.loads(body)
                log = STORE.subscriptions.setdefault((user, parts[4]), [])
                log += [(STORE.clock, u, True) for u in changes.get("add", [])]
                log += [(STORE.clock, u, False) for u in changes.get("remove", [])]
                self.send(200, {"timestamp": STORE.clock, "update_urls": []})
            elif kind == "episodes" and method == "GET":
                chosen = [a for s, a in STORE.actions.get(user, []) if s >= since]
                self.send(200, b'{"actions":[' + b",".join(chosen) + b'],"timestamp":%d}' % STORE.clock)
            elif kind == "episodes":
                STORE.clock += 1
                actions = json.loads(body)
                STORE.actions.setdefault(user, []).extend(
                    (STORE.clock, json.dumps(a).encode()) for a in actions)
                self.send(200, {"timestamp": STORE.clock, "update_urls": []})
            else:
                self.send(404, {})


def measure(cmd, env=None):
    """Runs cmd once; returns (wall s, cpu s, peak rss MiB, the call's own seconds when it prints
    `call SECONDS` on its standard output)."""
    out = "/tmp/singlecast-sync-bench-time"
    wrapped = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", out] + cmd
    start = time.perf_counter()
    result = subprocess.run(wrapped, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stdout.decode()}\n{result.stderr.decode()}")
    _, user, system, rss_kib = open(out).read().split()[-4:]
    call = [float(line.split()[1]) for line in result.stdout.decode().splitlines() if line.startswith("call ")]
    return wall, float(user) + float(system), int(rss_kib) / 1024, call[0] if call else None


def compare(title, runs, contenders):
    rounds = [[fn(r) for _, fn in contenders] for r in range(runs)]
    print(f"\n{title} ({runs} interleaved rounds; medians, ratios to the first)")
    for index, (name, _) in enumerate(contenders):
        figures = [r[index] for r in rounds]
        wall, cpu, rss = (statistics.median(f[i] for f in figures) for i in range(3))
        line = f"  {name:<44} {wall:8.3f} s  {cpu:8.3f} s cpu  {rss:7.1f} MiB"
        if index > 0:
            line += f"  {statistics.median(r[index][0] / r[0][0] for r in rounds):5.2f}x wall"
        print(line)
    for index, (name, _) in enumerate(contenders):
        calls = [r[index][3] for r in rounds if r[index][3] is not None]
        if calls:
            print(f"    ({name}: the call alone, inside the running process, {statistics.median(calls):.3f} s)")


MYGPO = """
import sys, time
from mygpoclient import api
url, user, command, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if command == 'start':
    sys.exit(0)
start = time.perf_counter()
client = api.MygPodderClient(user, 'bench', url)
if command == 'download':
    assert len(client.download_episode_actions(since=0).actions) == count
else:
    feed = url + '/feed.xml'
    actions = [api.EpisodeAction(feed, '%s/media/%d.mp3' % (url, i), 'play', device='phone',
                                 timestamp='2023-11-14T22:13:20', started=0, position=600, total=600)
               for i in range(count)]
    client.upload_episode_actions(actions)
print('call %.6f' % (time.perf_counter() - start))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--memory-actions", type=int, default=100_000)
    args = parser.parse_args()
    if not os.path.exists(SINGLECAST):
        sys.exit(f"{SINGLECAST} is missing: swift build -c release --product singlecast")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    count = args.actions
    items = "".join(
        f"<item><title>Episode {i}</title><guid>g{i}</guid><itunes:duration>600</itunes:duration>"
        f'<enclosure url="{base}/media/{i}.mp3" length="1" type="audio/mpeg"/></item>' for i in range(count))
    STORE.feed = ('<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
                  f"<channel><title>Bench</title>{items}</channel></rss>").encode()

    def action(i, podcast=base + "/feed.xml"):
        return json.dumps({"podcast": podcast, "episode": f"{base}/media/{i}.mp3", "action": "play",
                           "timestamp": "2030-01-01T10:00:00", "started": 0, "position": 120, "total": 600,
                           "device": "phone"}).encode()

    with STORE.lock:
        STORE.actions["receiver"] = [(STORE.clock, action(i)) for i in range(count)]
        STORE.actions["memory"] = [(STORE.clock, action(i, f"{base}/other.xml")) for i in range(args.memory_actions)]
        STORE.clock += 1

    work = tempfile.mkdtemp(prefix="singlecast-sync-bench-")
    script = os.path.join(work, "mygpo.py")
    open(script, "w").write(MYGPO)
    mygpo_env = dict(os.environ, no_proxy="*")

    def library(name, played):
        """A library subscribed to the feed (with every episode played, for sending): each round
        syncs a fresh copy of it, so that every round does the same work."""
        home = os.path.join(work, name)
        env = dict(os.environ, SINGLECAST_HOME=home, no_proxy="*")
        subprocess.run([SINGLECAST, "subscribe", base + "/feed.xml"], env=env, check=True, stdout=subprocess.DEVNULL)
        if played:
            subprocess.run([SINGLECAST, "episodes", "@1"], env=env, check=True, stdout=subprocess.DEVNULL)
            subprocess.run([SINGLECAST, "played", "--all"], env=env, check=True, stdout=subprocess.DEVNULL)
        return home

    receive_library = library("receive", played=False)
    send_library = library("send", played=True)

    def singlecast_sync(template, user, round):
        home = f"{template}-{round}"
        shutil.copytree(template, home)
        env = dict(os.environ, SINGLECAST_HOME=home, SINGLECAST_SYNC_PASSWORD=PASSWORD, no_proxy="*")
        return measure([SINGLECAST, "sync", "--server", base, "--user", user, "--device", "bench", "--api", "gpodder"], env=env)

    def requests(user, client, rounds=range(args.runs)):
        """The requests of a sync (or of a call) in each round, on average."""
        with STORE.lock:
            return sum(STORE.requests.pop((user.format(r), client), 0) for r in rounds) / len(rounds)

    print(f"singlecast sync vs mygpoclient, {count} episode actions, server {base}")
    empty_env = dict(os.environ, SINGLECAST_HOME=os.path.join(work, "empty"), no_proxy="*")
    compare("starting and exiting, no request", args.runs, [
        ("python3 importing mygpoclient.api", lambda r: measure([PYTHON, script, base, "nobody", "start", "0"], mygpo_env)),
        ("singlecast sync --forget (opens the library)", lambda r: measure([SINGLECAST, "sync", "--forget"], empty_env)),
    ])
    compare(f"receive {count} actions", args.runs, [
        ("mygpoclient download_episode_actions", lambda r: measure([PYTHON, script, base, "receiver", "download", str(count)], mygpo_env)),
        ("singlecast sync (receive and apply)", lambda r: singlecast_sync(receive_library, "receiver", r)),
    ])
    print(f"  (requests: mygpoclient {requests('receiver', 'mygpoclient'):.0f} a download, "
          f"singlecast {requests('receiver', 'singlecast'):.0f} a sync)")
    compare(f"send {count} actions", args.runs, [
        ("mygpoclient upload_episode_actions", lambda r: measure([PYTHON, script, base, f"mygpo{r}", "upload", str(count)], mygpo_env)),
        ("singlecast sync (send, batches of 1,000)", lambda r: singlecast_sync(send_library, f"sender{r}", r)),
    ])
    sent = sum(len(STORE.actions.get(f"sender{r}", [])) for r in range(args.runs))
    print(f"  (the server holds {sent} actions from singlecast's {args.runs} rounds; requests: mygpoclient "
          f"{requests('mygpo{}', 'mygpoclient'):.0f} an upload, singlecast {requests('sender{}', 'singlecast'):.0f} a sync)")

    memory_env = dict(os.environ, SINGLECAST_HOME=os.path.join(work, "memory"), SINGLECAST_SYNC_PASSWORD=PASSWORD, no_proxy="*")
    body = len(b",".join(a for _, a in STORE.actions["memory"]))
    wall, cpu, rss, _ = measure(
        [SINGLECAST, "sync", "--server", base, "--user", "memory", "--device", "bench", "--api", "gpodder"], memory_env)
    print(f"\nbounded memory: {args.memory_actions} actions received ({body / 1e6:.1f} MB of JSON): "
          f"{wall:.2f} s, {cpu:.2f} s cpu, peak {rss:.1f} MiB (target 150 MiB)")
    server.shutdown()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
