# PyGate's two commands: `make run` builds and starts PyGate; `make test`
# installs what the tests need and runs every test. Both skip work that is
# already done, so the second run is fast.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

UV_VERSION := 0.11.28
TOOLS      := $(CURDIR)/.tools
BIN        := $(CURDIR)/bin
PYGATE     := $(BIN)/pygate
export PATH := $(TOOLS)/bin:$(PATH)

# Debian packages: Fyne's build dependencies, Xvfb and D-Bus for the GUI
# tests, and the Windows cross-compiler for the cross-platform checks.
DEBIAN_PACKAGES := gcc pkg-config libgl1-mesa-dev libgl1-mesa-dri xorg-dev libxkbcommon-dev xvfb xauth dbus-daemon gcc-mingw-w64-x86-64 imagemagick xdotool

.PHONY: help run build test deps deps-system deps-uv deps-node go-test node-test vet bench cross screenshots bench-idle clean

help:
	@echo "make run     build PyGate, check this computer, and print the Claude Desktop entry"
	@echo "make test    install what the tests need, then run every test"
	@echo "make bench   measure a tiny execution against a bare Python start, and the sandbox's cost"
	@echo "make cross   the Windows cross-build and the darwin/windows vet"
	@echo "make screenshots  pictures of the real windows, under Xvfb, into docs/screenshots"

build:
	@mkdir -p $(BIN)
	go build -o $(PYGATE) .

run: deps-uv build
	@echo
	@$(PYGATE) version
	@echo
	@$(PYGATE) doctor || true
	@echo
	@echo "To connect Claude Desktop, add this entry to its claude_desktop_config.json"
	@echo "(inside \"mcpServers\"), then quit and reopen Claude Desktop:"
	@echo
	@printf '  "pygate": {"command": "%s", "args": ["mcp"]}\n' "$(PYGATE)"
	@echo
	@if [ "$$(uname)" = Linux ] && [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "There is no display here, so PyGate runs without its windows: nobody can be asked to"; \
	  echo "approve code, and with approval \"ask\" every run is refused. Press Ctrl-C to stop."; \
	else \
	  echo "Starting PyGate: look for its icon in the tray. Press Ctrl-C here to stop it."; \
	fi
	$(PYGATE) tray

bench-idle: build
	$(XVFB) bench/hub-idle.sh $(PYGATE) 60

screenshots: build
	@command -v import >/dev/null && command -v xdotool >/dev/null || { echo "make screenshots needs ImageMagick's import and xdotool (Debian: apt-get install imagemagick xdotool)"; exit 1; }
	$(XVFB) go run ./tools/screenshots docs/screenshots

deps: deps-system deps-uv deps-node

# Installs missing Debian packages when this is Debian and we are root (or
# have sudo); elsewhere it says what to install and carries on.
deps-system:
	@missing=""; \
	if command -v dpkg-query >/dev/null; then \
	  for p in $(DEBIAN_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	    echo "Installing Debian packages:$$missing"; \
	    $$sudo apt-get update -qq; \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  fi; \
	else \
	  echo "This is not a Debian system, so PyGate's make cannot install system packages for you."; \
	  echo "Install: Go 1.26, Python 3.10 or newer, Node.js 20 or newer, and a C compiler."; \
	  echo "  macOS:  xcode-select --install; brew install go python node"; \
	  echo "  Fedora: sudo dnf install golang python3 nodejs gcc pkgconf libX11-devel libXcursor-devel libXrandr-devel libXinerama-devel libXi-devel libXxf86vm-devel mesa-libGL-devel libxkbcommon-devel xorg-x11-server-Xvfb"; \
	  echo "  Arch:   sudo pacman -S go python nodejs gcc pkgconf libx11 libxcursor libxrandr libxinerama libxi mesa libxkbcommon xorg-server-xvfb"; \
	fi

# uv from PyPI, pinned, in a folder of our own so the tests use a real uv
# binary whatever else is on PATH.
deps-uv: $(TOOLS)/bin/uv

$(TOOLS)/bin/uv:
	@command -v python3 >/dev/null || { echo "Python 3 is needed to install uv: install python3 and run make again."; exit 1; }
	python3 -m pip install --quiet --disable-pip-version-check --target $(TOOLS)/uv-$(UV_VERSION) uv==$(UV_VERSION)
	@mkdir -p $(TOOLS)/bin
	ln -sf $(TOOLS)/uv-$(UV_VERSION)/bin/uv $(TOOLS)/bin/uv
	$(TOOLS)/bin/uv --version

deps-node: e2e/node/node_modules/.package-lock.json

e2e/node/node_modules/.package-lock.json: e2e/node/package-lock.json
	@command -v npm >/dev/null || { echo "Node.js 20 or newer (with npm) is needed for the end-to-end tests: install it and run make again."; exit 1; }
	cd e2e/node && npm ci --no-audit --no-fund --loglevel=error

test: deps vet go-test node-test

vet:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	go vet ./...

# The tray app's tests need a display: Xvfb, in a private D-Bus session so
# no stray dbus-daemon is left behind (where there is no xvfb-run, as on
# macOS, the tests use the display there is).
XVFB = $(if $(shell command -v xvfb-run),dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24")

go-test:
	$(XVFB) go test -count=1 ./...

node-test: build
	cd e2e/node && PYGATE_BIN=$(PYGATE) node --test

bench: deps-uv build
	go run ./bench/roundtrip -pygate $(PYGATE)
	go test ./runner -run '^$$' -bench SandboxOverhead -benchtime 40x

# Cross-platform checks: the Windows binary, and vet of the Fyne-free
# packages for darwin and windows.
cross:
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc go build -ldflags "-H=windowsgui" -o $(BIN)/pygate.exe .
	GOOS=darwin CGO_ENABLED=0 go vet ./app/... ./approval/... ./journal/... ./mcp/... ./runner/...
	GOOS=windows CGO_ENABLED=0 go vet ./app/... ./approval/... ./journal/... ./mcp/... ./runner/...

clean:
	rm -rf $(BIN) $(TOOLS) e2e/node/node_modules
