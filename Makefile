# Installs Singlecast with its man pages, completions and systemd user units:
#   make install [PREFIX=~/.local] [DESTDIR=]    make uninstall    make deb
# The binary carries the Swift runtime (--static-swift-stdlib): it runs without the toolchain; it is stripped.

PREFIX ?= $(HOME)/.local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
BASHDIR = $(PREFIX)/share/bash-completion/completions
ZSHDIR = $(PREFIX)/share/zsh/site-functions
FISHDIR = $(PREFIX)/share/fish/vendor_completions.d
UNITDIR = $(PREFIX)/lib/systemd/user

RELEASE = .build/release
STAGE = .build/stage
UNITS = singlecast-daemon.service singlecast-update.service singlecast-update.timer

.PHONY: all stage install uninstall deb clean-stage

all: stage

# The man pages come from the debug build (which `swift test` has made already: the plugin builds
# every product, and a release build of its own would double the time); the installed binary is
# the release build with the Swift runtime linked in.
stage:
	rm -rf $(STAGE)
	mkdir -p $(STAGE)/man $(STAGE)/completions $(STAGE)/units
	swift package plugin generate-manual --multi-page --configuration debug
	cp .build/plugins/GenerateManual/outputs/singlecast/*.1 $(STAGE)/man/
	swift build -c release --static-swift-stdlib --product singlecast
	cp $(RELEASE)/singlecast $(STAGE)/singlecast
	# Symbols and debug information are for the build's own binary; the installed one goes without.
	strip $(STAGE)/singlecast
	$(STAGE)/singlecast --generate-completion-script bash > $(STAGE)/completions/singlecast.bash
	$(STAGE)/singlecast --generate-completion-script zsh > $(STAGE)/completions/_singlecast
	$(STAGE)/singlecast --generate-completion-script fish > $(STAGE)/completions/singlecast.fish
	for unit in $(UNITS); do sed -e 's|@BINDIR@|$(BINDIR)|g' Packaging/systemd/$$unit > $(STAGE)/units/$$unit; done
	echo "$(PREFIX)" > $(STAGE)/prefix

# Installs what `stage` made; stages first when nothing was staged for this PREFIX (the units name it).
install:
	[ "$$(cat $(STAGE)/prefix 2>/dev/null)" = "$(PREFIX)" ] || $(MAKE) stage PREFIX=$(PREFIX)
	install -D -m 0755 $(STAGE)/singlecast $(DESTDIR)$(BINDIR)/singlecast
	install -d $(DESTDIR)$(MANDIR)
	install -m 0644 $(STAGE)/man/*.1 $(DESTDIR)$(MANDIR)/
	install -D -m 0644 $(STAGE)/completions/singlecast.bash $(DESTDIR)$(BASHDIR)/singlecast
	install -D -m 0644 $(STAGE)/completions/_singlecast $(DESTDIR)$(ZSHDIR)/_singlecast
	install -D -m 0644 $(STAGE)/completions/singlecast.fish $(DESTDIR)$(FISHDIR)/singlecast.fish
	install -d $(DESTDIR)$(UNITDIR)
	install -m 0644 $(addprefix $(STAGE)/units/,$(UNITS)) $(DESTDIR)$(UNITDIR)/

# Removes exactly what install put there, and the folders it leaves empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/singlecast
	rm -f $(DESTDIR)$(MANDIR)/singlecast.1 $(DESTDIR)$(MANDIR)/singlecast.*.1
	rm -f $(DESTDIR)$(BASHDIR)/singlecast $(DESTDIR)$(ZSHDIR)/_singlecast $(DESTDIR)$(FISHDIR)/singlecast.fish
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS))
	for dir in $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR) $(UNITDIR); do \
	  path="$(DESTDIR)$$dir"; \
	  while [ "$$path" != "$(DESTDIR)$(PREFIX)" ] && rmdir "$$path" 2>/dev/null; do path=$$(dirname "$$path"); done; \
	done
	if [ -n "$(DESTDIR)" ]; then \
	  path="$(DESTDIR)$(PREFIX)"; \
	  while [ "$$path" != "$(DESTDIR)" ] && rmdir "$$path" 2>/dev/null; do path=$$(dirname "$$path"); done; \
	fi

# singlecast_VERSION_amd64.deb: installed under /usr, Depends on the shared libraries it links.
deb:
	rm -rf .build/deb
	$(MAKE) install PREFIX=/usr DESTDIR=$(CURDIR)/.build/deb
	mkdir -p .build/deb/DEBIAN
	Packaging/debian-control $(STAGE)/singlecast "$$($(STAGE)/singlecast --version)" > .build/deb/DEBIAN/control
	dpkg-deb --root-owner-group --build .build/deb singlecast_$$($(STAGE)/singlecast --version)_amd64.deb
