#!/usr/bin/env bash
# Checks what `make install` and `make deb` give a user: a stripped binary that runs without the
# Swift toolchain, man pages that render, bash completion, systemd units that systemd accepts, an
# uninstall that leaves nothing, and a package that installs, runs and removes cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "test-install: $*" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

started=$(date +%s)
make stage PREFIX=/usr
echo "test-install: staged (man pages, release build with the static Swift runtime) in $(( $(date +%s) - started )) s"

make install PREFIX=/usr DESTDIR="$root"
binary=$root/usr/bin/singlecast
[ -x "$binary" ] || fail "no binary installed"
if ldd "$binary" | grep -q libswift; then fail "the binary links a Swift library: $(ldd "$binary" | grep libswift)"; fi
if readelf -S "$binary" | grep -q '\.symtab'; then fail "the installed binary is not stripped (it has a .symtab)"; fi
[ "$(env -i "$binary" --version)" = "$(.build/release/singlecast --version)" ] || fail "--version did not run"

for page in singlecast.1 singlecast.play.1 singlecast.config.1; do
  [ -f "$root/usr/share/man/man1/$page" ] || fail "no man page $page"
done
MANPAGER=cat MANWIDTH=80 man -l "$root/usr/share/man/man1/singlecast.download.1" | grep -q "config: jobs" \
  || fail "the download page does not render, or does not name the jobs setting"

completions=$(bash -c '
  source /usr/share/bash-completion/bash_completion 2>/dev/null || true
  source "$1"
  COMP_WORDS=(singlecast pl); COMP_CWORD=1; COMP_LINE="singlecast pl"; COMP_POINT=${#COMP_LINE}
  _singlecast singlecast pl singlecast >/dev/null 2>&1 || true
  printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "
' _ "$root/usr/share/bash-completion/completions/singlecast")
[ "$completions" = "play played" ] || fail "bash completes \"singlecast pl\" to \"$completions\", not \"play played\""
[ -f "$root/usr/share/zsh/site-functions/_singlecast" ] || fail "no zsh completion"
[ -f "$root/usr/share/fish/vendor_completions.d/singlecast.fish" ] || fail "no fish completion"
grep -q '^OnCalendar=\*:0/15$' "$root/usr/lib/systemd/user/singlecast-update.timer" || fail "the timer does not wake every 15 minutes"
grep -q 'singlecast update --if-due --changes-only$' "$root/usr/lib/systemd/user/singlecast-update.service" \
  || fail "the timed update does not run only when due, naming only changes"
grep -q '^Persistent=true$' "$root/usr/lib/systemd/user/singlecast-update.timer" || fail "the timer is not persistent"

make uninstall PREFIX=/usr DESTDIR="$root"
left=$(find "$root" -mindepth 1)
[ -z "$left" ] || fail "uninstall left: $left"

make deb
package=$(ls singlecast_*_amd64.deb)
dpkg -i "$package"
[ "$(env -i /usr/bin/singlecast --version)" = "$(.build/stage/singlecast --version)" ] || fail "the installed package does not run"
# A user manager of its own (a runtime folder) and no man lookup: the package's pages may be
# left out of a minimal image by dpkg's path excludes.
XDG_RUNTIME_DIR=$root systemd-analyze verify --user --man=no /usr/lib/systemd/user/singlecast-daemon.service \
  /usr/lib/systemd/user/singlecast-update.service /usr/lib/systemd/user/singlecast-update.timer || fail "systemd refuses the units"
dpkg -r singlecast
[ ! -e /usr/bin/singlecast ] && [ ! -e /usr/lib/systemd/user/singlecast-update.timer ] || fail "dpkg -r left files"
rm -f "$package"
echo "test-install: every check passed"
