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
# instructions fault on some VMs: it is built native without AMX, once per CPU model, from the llama.cpp source that
# llama-cpp-python vendors, into one folder kept in the cache: llama.cpp's own server (the default embedded server)
# and the shared libraries that llama-cpp-python's binding loads. The binding itself is installed without a build.
LLAMA_CPP=0.3.36
cpu=$(grep -m1 '^flags' /proc/cpuinfo | sha256sum | cut -c1-12)
built="${HARNESS_EVO_CACHE:-$HOME/.cache/harness-evo}/llama.cpp/cpu-$cpu/$LLAMA_CPP"
stamp="$VENV/.installed-$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)-$cpu"

# The compile runs in the background while the package, its dependencies (the model's weights among them) and the
# base image are installed: the steps overlap instead of adding up.
compile_pid=""
compile_src=""
stop_compile() {  # its process group, and its folder
    [ -z "$compile_pid" ] || { kill -- -"$compile_pid" 2>/dev/null; rm -rf "$compile_src" 2>/dev/null; } || true
}
trap stop_compile EXIT

compile_llama_cpp() {  # $1: the extracted source folder; writes $1/build/bin
    local src=$1 no_amx='-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'
    cmake -S "$src/llama_cpp_python-$LLAMA_CPP/vendor/llama.cpp" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
        -DGGML_NATIVE=ON -DCMAKE_C_FLAGS="$no_amx" -DCMAKE_CXX_FLAGS="$no_amx" -DBUILD_SHARED_LIBS=ON \
        -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH='$ORIGIN' \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
        -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >"$src/configure.log" 2>&1 || { cat "$src/configure.log"; return 1; }
    cmake --build "$src/build" --target llama-server -j "$(nproc)" >"$src/build.log" 2>&1 || { tail -30 "$src/build.log"; return 1; }
}

installing=false
[ -f "$stamp" ] && [ -x "$VENV/bin/llama-server" ] || installing=true
if $installing; then
    "$VENV/bin/pip" install -q --upgrade pip
    wheels="$built"
    if [ ! -x "$built/llama-server" ]; then
        say "building llama.cpp for this CPU in the background (once per CPU model: the longest step of a first set-up)"
        compile_src=$(mktemp -d)
        "$VENV/bin/pip" download -q --no-deps --no-binary llama-cpp-python -d "$compile_src" "llama-cpp-python==$LLAMA_CPP"
        tar -xzf "$compile_src/llama_cpp_python-$LLAMA_CPP.tar.gz" -C "$compile_src"
        set -m  # the compile in its own process group, so that a failure or Ctrl-C here stops all of it
        compile_llama_cpp "$compile_src" >"$compile_src/compile.out" 2>&1 &
        compile_pid=$!
        set +m
        # the binding's Python code only (its CMake option LLAMA_BUILD=OFF): it loads the libraries compiled above
        wheels="$compile_src/wheel"
        CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" "$VENV/bin/pip" wheel -q --no-deps --no-cache-dir \
            -w "$wheels" "$compile_src/llama_cpp_python-$LLAMA_CPP.tar.gz"
    fi
    say "installing harness-evo with the embedded model and test extras"
    "$VENV/bin/pip" install -q --no-index --no-deps --force-reinstall "$wheels"/llama_cpp_python-"$LLAMA_CPP"-*.whl
    "$VENV/bin/pip" install -q -e ".[local,test]"
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

if [ -n "$compile_pid" ]; then
    say "waiting for the llama.cpp build"
    wait "$compile_pid" || { compile_pid=""; cat "$compile_src/compile.out"; say "the llama.cpp build failed"; exit 1; }
    compile_pid=""
    rm -rf "$built.partial" && mkdir -p "$built.partial"
    cp -a "$compile_src/build/bin/llama-server" "$compile_src/build/bin/"lib*.so* "$compile_src/wheel/"*.whl "$built.partial/"
    mv "$built.partial" "$built"
    rm -rf "$compile_src"
fi
if $installing; then
    # llama-server and the libraries in one folder (they find each other by RPATH $ORIGIN); the binding's lib folder
    # and .venv/bin/llama-server, where harness-evo looks for the server, point into it
    rm -rf "$VENV/lib/llama.cpp" && mkdir -p "$VENV/lib/llama.cpp"
    cp -a "$built/llama-server" "$built/"lib*.so* "$VENV/lib/llama.cpp/"
    binding=$("$VENV/bin/python" -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("llama_cpp").origin).parent)')
    rm -rf "$binding/lib" && ln -s "$(realpath --relative-to="$binding" "$VENV/lib/llama.cpp")" "$binding/lib"
    ln -sfn ../lib/llama.cpp/llama-server "$VENV/bin/llama-server"
    rm -f "$VENV"/.installed-* && touch "$stamp"
fi
