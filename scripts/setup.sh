#!/usr/bin/env bash
# Sets up everything harness-evo needs on this machine; idempotent (a second run skips what is done).
# A virtual environment with the package and its extras, the Docker engine, the base image.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

need_apt=()
python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
command -v g++ >/dev/null || need_apt+=(g++)  # llama.cpp is compiled here
command -v cmake >/dev/null || need_apt+=(cmake)
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

if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtual environment $VENV"
    python3 -m venv "$VENV"
fi
# llama.cpp built for this CPU runs the embedded model about twice as fast as a portable build, but its AMX
# instructions fault on some VMs: it is built native without AMX, once per CPU model, and the wheel is kept.
LLAMA_CPP=0.3.36
cpu=$(grep -m1 '^flags' /proc/cpuinfo | sha256sum | cut -c1-12)
wheels="${HARNESS_EVO_CACHE:-$HOME/.cache/harness-evo}/wheels/cpu-$cpu"
stamp="$VENV/.installed-$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)-$cpu"
if [ ! -f "$stamp" ]; then
    "$VENV/bin/pip" install -q --upgrade pip
    if ! ls "$wheels"/llama_cpp_python-"$LLAMA_CPP"-*.whl >/dev/null 2>&1; then
        say "building llama.cpp for this CPU (once per CPU model: ~5-10 min)"
        no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        CMAKE_ARGS="-DGGML_NATIVE=ON -DCMAKE_C_FLAGS='$no_amx' -DCMAKE_CXX_FLAGS='$no_amx'" \
            "$VENV/bin/pip" wheel -q --no-deps --no-cache-dir -w "$wheels" "llama-cpp-python==$LLAMA_CPP"
    fi
    say "installing harness-evo with the embedded model and test extras"
    "$VENV/bin/pip" install -q --no-index --no-deps --force-reinstall --find-links "$wheels" "llama-cpp-python==$LLAMA_CPP"
    "$VENV/bin/pip" install -q -e ".[local,test]"
    rm -f "$VENV"/.installed-* && touch "$stamp"
fi

# llama.cpp's own server (several conversations at once, speculative decoding) from the same llama.cpp source,
# built the same way, kept beside the wheel and put into the virtual environment, where harness-evo looks for it.
server="$wheels/llama-server-$LLAMA_CPP/llama-server"
if [ ! -x "$server" ]; then
    say "building llama.cpp's llama-server for this CPU (once per CPU model: ~5-10 min)"
    src=$(mktemp -d)
    "$VENV/bin/pip" download -q --no-deps --no-binary llama-cpp-python -d "$src" "llama-cpp-python==$LLAMA_CPP"
    tar -xzf "$src"/llama_cpp_python-"$LLAMA_CPP".tar.gz -C "$src"
    no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    cmake -S "$src/llama_cpp_python-$LLAMA_CPP/vendor/llama.cpp" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
        -DGGML_NATIVE=ON -DCMAKE_C_FLAGS="$no_amx" -DCMAKE_CXX_FLAGS="$no_amx" -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
        -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >"$src/configure.log" 2>&1 || { cat "$src/configure.log"; exit 1; }
    cmake --build "$src/build" --target llama-server -j "$(nproc)" >"$src/build.log" 2>&1 || { tail -30 "$src/build.log"; exit 1; }
    mkdir -p "$(dirname "$server")"
    cp "$src/build/bin/llama-server" "$server.partial" && mv "$server.partial" "$server"
    rm -rf "$src"
fi
cmp -s "$server" "$VENV/bin/llama-server" || install -m 755 "$server" "$VENV/bin/llama-server"

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
