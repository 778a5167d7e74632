#!/usr/bin/env python3
"""Singlecast benchmarks, printed side by side with the reference tools in one run.

usage: Benchmarks/bench.py [feed|download|all] [--runs N] [--items N] [--keep]

feed:     xmllint --stream --noout FILE  vs  the library's parse  vs  singlecast episodes FILE --json
          on ../shared/bench/genfeed.py 20000 (and a 100,000-item feed for memory; --items N for one size).
download: a loopback nginx; one 1 GiB file by curl -o F + sync F vs singlecast download;
          16 x 64 MiB by aria2c -j4 vs singlecast download --jobs 4; a resume after a kill at
          about half of the 1 GiB file (bytes sent again, from nginx's access log).
Each contender runs once per round, in turn (the machine is shared and noisy); printed are the
medians of wall seconds, CPU seconds and peak RSS, and the medians over rounds of the ratios to
the reference tool.
"""
import os, resource, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENFEED = os.path.join(ROOT, "..", "shared", "bench", "genfeed.py")
BIN = os.path.join(ROOT, ".build", "release")


def measure(cmd, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd once; returns (wall s, cpu s, peak rss MiB) of the child."""
    wrapped = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", "/tmp/singlecast-bench-time"] + cmd
    start = time.perf_counter()
    subprocess.run(wrapped, env=env, stdout=stdout, stderr=subprocess.PIPE if stdout is subprocess.DEVNULL else None, check=True)
    wall = time.perf_counter() - start
    _, user, system, rss_kib = open("/tmp/singlecast-bench-time").read().split()[-4:]
    return wall, float(user) + float(system), int(rss_kib) / 1024


def compare(runs, contenders):
    """Runs every (name, fn) once per round, in turn, for `runs` rounds, so that each round
    sees the same machine load, and prints per contender the median wall, CPU and peak RSS,
    and the median over rounds of its wall and CPU ratios to the first contender."""
    rounds = [[fn() for _, fn in contenders] for _ in range(runs)]
    for index, (name, _) in enumerate(contenders):
        figures = [r[index] for r in rounds]
        wall, cpu, rss = (statistics.median(f[i] for f in figures) for i in range(3))
        line = f"  {name:<40} {wall:8.3f} s  {cpu:8.3f} s cpu  {rss:7.1f} MiB"
        if index > 0:
            wall_ratio = statistics.median(r[index][0] / r[0][0] for r in rounds)
            cpu_ratio = statistics.median(r[index][1] / max(r[0][1], 1e-9) for r in rounds)
            line += f"  {wall_ratio:5.2f}x wall  {cpu_ratio:5.2f}x cpu"
        print(line)


def build():
    subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "singlecast"], cwd=ROOT, check=True)
    subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "parse-feed"], cwd=ROOT, check=True)


def bench_feed(runs, work, sizes):
    home = os.path.join(work, "home")
    env = dict(os.environ, SINGLECAST_HOME=home)
    singlecast = [os.path.join(BIN, "singlecast")]
    for items in sizes:
        feed = os.path.join(work, f"feed-{items}.xml")
        subprocess.run([sys.executable, GENFEED, str(items), feed], check=True)
        size = os.path.getsize(feed) / 1e6
        print(f"\nfeed: {items} items, {size:.1f} MB ({runs} interleaved rounds; medians, ratios to xmllint)")

        def fresh_listing():
            shutil.rmtree(home, ignore_errors=True)
            return measure(singlecast + ["episodes", feed, "--json"], env=env)

        compare(runs, [
            ("xmllint --stream --noout", lambda: measure(["xmllint", "--stream", "--noout", feed])),
            ("SinglecastKit parse (parse-feed)", lambda: measure([os.path.join(BIN, "parse-feed"), feed])),
            ("episodes FILE --json, new library", fresh_listing),
            ("episodes FILE --json, listed before", lambda: measure(singlecast + ["episodes", feed, "--json"], env=env)),
        ])
        shutil.rmtree(home, ignore_errors=True)


NGINX_CONF = """
daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
  log_format bench '$request_uri $status $body_bytes_sent'; access_log {work}/access.log bench;
  sendfile on; tcp_nopush on; client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp;
  fastcgi_temp_path {work}/tmp; uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
  types {{ audio/mpeg mp3; application/rss+xml xml; }}
  server {{ listen 127.0.0.1:{port}; root {work}/www; }}
}}
"""


def feed_xml(port, names):
    items = "".join(
        f'<item><title>{n}</title><guid>{n}</guid>'
        f'<enclosure url="http://127.0.0.1:{port}/{n}" type="audio/mpeg" length="{size}"/></item>'
        for n, size in names)
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title>{items}</channel></rss>'


def bytes_sent(work, path):
    total = 0
    for line in open(os.path.join(work, "access.log")):
        uri, _, sent = line.split()
        if uri == path:
            total += int(sent)
    return total


def bench_download(runs, work):
    port = 18000 + os.getpid() % 1000
    www = os.path.join(work, "www")
    os.makedirs(www); os.makedirs(os.path.join(work, "tmp"))
    gib = 1 << 30
    subprocess.run(["head", "-c", str(gib), "/dev/urandom"], stdout=open(os.path.join(www, "big.mp3"), "wb"), check=True)
    small = []
    for i in range(16):
        name = f"part{i:02d}.mp3"
        subprocess.run(["head", "-c", str(64 << 20), "/dev/urandom"], stdout=open(os.path.join(www, name), "wb"), check=True)
        small.append((name, 64 << 20))
    open(os.path.join(www, "big.xml"), "w").write(feed_xml(port, [("big.mp3", gib)]))
    open(os.path.join(www, "small.xml"), "w").write(feed_xml(port, small))
    conf = os.path.join(work, "nginx.conf")
    open(conf, "w").write(NGINX_CONF.format(work=work, port=port))
    subprocess.run(["nginx", "-t", "-q", "-c", conf, "-p", work], check=True)
    nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        base = f"http://127.0.0.1:{port}"
        out = os.path.join(work, "out"); home = os.path.join(work, "home")

        def fresh():
            shutil.rmtree(out, ignore_errors=True); shutil.rmtree(home, ignore_errors=True); os.makedirs(out)

        env = dict(os.environ, SINGLECAST_HOME=home)
        singlecast = os.path.join(BIN, "singlecast")

        def curl_sync():
            fresh()
            target = os.path.join(out, "big.mp3")
            return measure(["sh", "-c", f'curl -sSf -o "{target}" {base}/big.mp3 && sync "{target}"'])

        def singlecast_big():
            fresh()
            return measure([singlecast, "download", "1", "--feed", f"{base}/big.xml"], env=env)

        print(f"\ndownload: one 1 GiB file over loopback nginx ({runs} interleaved rounds; medians, ratios to curl)")
        compare(runs, [("curl -o FILE && sync FILE", curl_sync), ("singlecast download", singlecast_big)])

        def aria():
            fresh()
            listing = os.path.join(work, "list.txt")
            open(listing, "w").write("".join(f"{base}/{n}\n" for n, _ in small))
            return measure(["aria2c", "-q", "-j4", "-d", out, "-i", listing, "--allow-overwrite=true",
                            "--file-allocation=none"])

        def singlecast_small():
            fresh()
            return measure([singlecast, "download", "1-16", "--jobs", "4", "--feed", f"{base}/small.xml"], env=env)

        print(f"\ndownload: 16 files of 64 MiB, 4 at once ({runs} interleaved rounds; medians, ratios to aria2c)")
        compare(runs, [("aria2c -j4", aria), ("singlecast download --jobs 4", singlecast_small)])

        print("\nresume: singlecast download killed (SIGKILL) at about half of 1 GiB, then run again")
        fresh()
        open(os.path.join(work, "access.log"), "w").close()
        os.kill(int(open(os.path.join(work, "nginx.pid")).read()), signal.SIGUSR1)  # reopen the log
        time.sleep(0.2)
        # Throttle the first run so that "about half" can be caught.
        process = subprocess.Popen([singlecast, "download", "1", "--feed", f"{base}/big.xml"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        part = os.path.join(home, "Episodes", "Bench", "big.mp3.part")
        deadline = time.time() + 60
        while time.time() < deadline:
            if os.path.exists(part) and os.path.getsize(part) >= gib // 2:
                break
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL); process.wait()
        kept = os.path.getsize(part)
        subprocess.run([singlecast, "download", "1", "--feed", f"{base}/big.xml"], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        time.sleep(0.3)
        sent = bytes_sent(work, "/big.mp3")
        print(f"  killed with {kept / (1 << 20):.0f} MiB on disk; nginx sent {sent / (1 << 20):.1f} MiB in all for a "
              f"1024 MiB file: {(sent - gib) / (1 << 20):.1f} MiB sent again ({(sent - gib) / gib * 100:.2f} % of the file)")
        final = os.path.join(home, "Episodes", "Bench", "big.mp3")
        same = subprocess.run(["cmp", "-s", final, os.path.join(www, "big.mp3")]).returncode == 0
        print(f"  final file byte-identical to the served one: {'yes' if same else 'NO'}")
    finally:
        nginx.terminate(); nginx.wait()


def main():
    args = sys.argv[1:]
    which = args[0] if args and not args[0].startswith("-") else "all"
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
    sizes = [int(args[args.index("--items") + 1])] if "--items" in args else [20000, 100000]
    build()
    work = tempfile.mkdtemp(prefix="singlecast-bench-")
    os.chmod(work, 0o755)  # nginx's workers run as another user
    try:
        if which in ("feed", "all"):
            bench_feed(runs, work, sizes)
        if which in ("download", "all"):
            bench_download(max(1, runs // 2), os.path.join(work, "dl"))
    finally:
        if "--keep" not in args:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
