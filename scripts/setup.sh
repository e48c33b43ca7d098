#!/usr/bin/env bash
# Sets up everything harness-evo needs on this machine; idempotent (a second run skips what is done).
# A virtual environment with the package and its extras, the Docker engine, the base image.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtual environment $VENV"
    python3 -m venv "$VENV"
fi
stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    say "installing harness-evo with the embedded model and test extras (llama.cpp builds from source the first time: ~4 min)"
    "$VENV/bin/pip" install -q --upgrade pip
    # A native llama.cpp build uses CPU features (AMX) that fault on some VMs: build it portable.
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VENV/bin/pip" install -q -e ".[local,test]"
    rm -f "$VENV"/.installed-* && touch "$stamp"
fi

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v debootstrap >/dev/null || need_apt+=(debootstrap)
command -v dockerd >/dev/null || docker info >/dev/null 2>&1 || need_apt+=(docker.io)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        say "installing ${need_apt[*]} with apt"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        say "missing ${need_apt[*]}; install them (as root: apt-get install -y ${need_apt[*]})"
    fi
fi

if ! docker info >/dev/null 2>&1; then
    if command -v dockerd >/dev/null && [ "$(id -u)" = 0 ]; then
        say "starting dockerd"
        setsid nohup dockerd >/var/log/dockerd.log 2>&1 </dev/null &
        for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    fi
fi
if docker info >/dev/null 2>&1; then
    "$VENV/bin/harness-evo" sandbox build-base
else
    say "Docker is not available: install it (apt-get install -y docker.io, then start dockerd) or use --sandbox local"
fi
