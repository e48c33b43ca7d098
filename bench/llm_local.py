"""How fast and how good the embedded models are on this machine (a benchmark, not a test).

1. Speed per model, through `LLM` against the server harness-evo starts: prompt tokens/s (a long prompt, one
   generated token), generation tokens/s (a short prompt, 128 tokens), the latency of a response-cache hit,
   and throughput (generated tokens/s over 4 requests) with 1 and with 2 concurrent callers.
2. `--prompt-cache`: llama-cpp-python's `--cache true` (a RAM cache of evaluated prompts) against none,
   on two agent-like conversations whose turns interleave, as 2 executor workers produce them.
3. `--quality`: the solver's job in small (20 bash one-liners checked by running them) and a critic's job
   (12 labelled judgements of harness edits, as structured output): pass rates and seconds per call.

    python bench/llm_local.py [--models local/qwen2.5-coder-0.5b local/qwen2.5-coder-1.5b] [--threads N]
        [--prompt-cache] [--quality]
"""

import argparse
import os
import re
import subprocess
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel

from harness_evo.config import ModelsConfig, RoleModel
from harness_evo.llm import LLM, llama

FILLER = (
    "The agent works in a sandbox. It runs one bash command per reply, reads the output, and decides the next "
    "command. It checks its result before it says it is done. "
)


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


THREADS: int | None = None
"""Threads of the embedded server (--threads); None: harness-evo's default."""
VERBOSE = False
"""Show each wrong answer of --quality (--verbose)."""


def open_llm(model: str, cache: bool, **params) -> LLM:
    role = RoleModel(model=model, max_tokens=128, params=params)
    return LLM(ModelsConfig(solver=role, critic=role, threads=THREADS), cache=cache)


def speed(model: str) -> None:
    with open_llm(model, cache=False) as llm:
        llm.complete("solver", user("Say ok."), max_tokens=1)  # starts the server, loads the weights
        long_prompt = f"{uuid.uuid4()} " + FILLER * 40 + "\nSummarize the text above in one word."
        prompt = llm.complete("solver", user(long_prompt), max_tokens=1)
        fresh = f"{uuid.uuid4()} Count from 1 to 200, one number per line."
        generation = llm.complete("solver", user(fresh), max_tokens=128)
        prompt_rate = prompt.tokens_in / prompt.latency_s
        # the short prompt's own evaluation is taken out at the measured prompt rate
        generation_rate = generation.tokens_out / max(generation.latency_s - generation.tokens_in / prompt_rate, 1e-6)
        print(f"  prompt:     {prompt_rate:7.1f} tokens/s  ({prompt.tokens_in} tokens in {prompt.latency_s:.2f} s)")
        print(
            f"  generation: {generation_rate:7.1f} tokens/s  ({generation.tokens_out} tokens in "
            f"{generation.latency_s:.2f} s)"
        )

        def request(i: int) -> int:
            return llm.complete(
                "solver", user(f"{uuid.uuid4()} Write a bash loop that prints {i} squares."), max_tokens=64
            ).tokens_out

        for workers in (1, 2):
            started = time.perf_counter()
            with ThreadPoolExecutor(workers) as pool:
                tokens = sum(pool.map(request, range(4)))
            elapsed = time.perf_counter() - started
            print(
                f"  throughput, {workers} concurrent: {tokens / elapsed:6.1f} generated tokens/s ({tokens} tokens, 4 "
                f"requests, {elapsed:.1f} s)"
            )
    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["HARNESS_EVO_CACHE"] = cache_dir
        with open_llm(model, cache=True) as llm:
            llm.complete("solver", user("Name one bash builtin."), max_tokens=16)
            hit = llm.complete("solver", user("Name one bash builtin."), max_tokens=16)
        del os.environ["HARNESS_EVO_CACHE"]
    print(f"  cache hit:  {hit.latency_s * 1000:7.2f} ms (cached={hit.cached})")


def prompt_cache(model: str) -> None:
    """Two conversations of 4 turns each, interleaved turn by turn, against a server with and without --cache."""
    name = model.removeprefix("local/")
    system = {"role": "system", "content": FILLER * 25}
    for label, extra in (("no prompt cache", ()), ("--cache true", ("--cache", "true"))):
        server = llama.start(name, 8192, THREADS, extra)
        try:
            endpoint = {"api_base": f"{server.url}/v1", "api_key": "local"}
            with open_llm(f"openai/{name}", cache=False, **endpoint) as llm:
                conversations = [[system, *user(f"Task {i}: list the files, then count them.")] for i in range(2)]
                started = time.perf_counter()
                for _ in range(4):
                    for messages in conversations:
                        reply = llm.complete("solver", messages, max_tokens=32, seed=1)
                        messages += [
                            {"role": "assistant", "content": reply.text},
                            *user("output:\nfile1\nfile2\nNext command?"),
                        ]
                elapsed = time.perf_counter() - started
        finally:
            server.stop()
        print(f"  {label:16s} {elapsed:6.1f} s for 8 interleaved turns ({elapsed / 8:.2f} s per turn)")


BASH_PROBLEMS = [
    ("How many lines does data.txt have? Print only the number.", "3"),
    ("Print the sum of the numbers in the second column of scores.csv (comma-separated, no header).", "60"),
    ("Print how many files ending in .py are in the folder src, searching subfolders too.", "3"),
    ("Print how many lines of app.log contain the word ERROR.", "2"),
    ("Print the words of words.txt sorted alphabetically without duplicates, one per line.", "apple\nbanana\ncherry"),
    ("Print the name of the largest file in the folder blobs.", "big.bin"),
    ("Print the content of config.ini with every occurrence of 'foo' replaced by 'bar'.", "name=bar\nmode=bar-fast"),
    ("Print the third line of data.txt in upper case.", "GAMMA"),
    ("Print the name of the person with the highest score in scores.csv (name,score per line).", "cid"),
    ("Print the last line of app.log.", "ERROR again"),
    ("Print the number of characters in the first line of data.txt.", "5"),
    ("Print the lines of data.txt in reverse order.", "gamma\nbeta\nalpha"),
    ("Print how many distinct words words.txt contains.", "3"),
    ("Print the value of the key 'mode' in config.ini (lines are key=value).", "foo-fast"),
    ("Print the names of the files in src/pkg, one per line.", "c.py"),
    ("Print the lines of app.log that start with INFO, without the word INFO and the space after it.", "start\nretry"),
    ("Print the size in bytes of blobs/small.bin.", "10"),
    ("Print the first column of scores.csv joined with '+' (e.g. a+b+c).", "ann+bob+cid"),
    ("Print how many times the word apple occurs in words.txt.", "2"),
    ("Print the number of lines of data.txt that contain the letter 'e'.", "1"),
]
"""(question, exact expected output); each runs in a fresh copy of the same small folder."""


def bash_world(folder: Path) -> None:
    (folder / "data.txt").write_text("alpha\nbeta\ngamma\n")
    (folder / "scores.csv").write_text("ann,10\nbob,20\ncid,30\n")
    for path in ("src/a.py", "src/b.py", "src/pkg/c.py", "src/readme.md"):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("x\n")
    (folder / "app.log").write_text("INFO start\nERROR disk\nINFO retry\nERROR again\n")
    (folder / "words.txt").write_text("banana apple\ncherry apple banana\n")
    (folder / "blobs").mkdir()
    (folder / "blobs" / "small.bin").write_bytes(b"x" * 10)
    (folder / "blobs" / "big.bin").write_bytes(b"x" * 5000)
    (folder / "config.ini").write_text("name=foo\nmode=foo-fast\n")


class Judgement(BaseModel):
    reason: str
    """First, so that the verdict comes after the model has written its reasons."""
    general: bool


EDITS = [
    ("Before saying you are done, run a command that shows the result you produced.", True),
    ("When the task mentions the file /app/orders.db, the answer is 42.", False),
    ("If a command fails, read its error message and change the command before running it again.", True),
    ("For the task 'git-recover-lost-commit', run `git reflog` and checkout abc123.", False),
    ("Quote file names that may contain spaces.", True),
    ("Always write exactly 'March: 17' to /app/answer.txt.", False),
    ("Look at the files of the working directory before changing any of them.", True),
    ("The expected output of the disk usage task is '4.0K logs'; print it directly.", False),
    ("Prefer one simple command over a long pipeline you cannot check.", True),
    ("In the task about renaming files with spaces, the files are called 'a b.txt' and 'c d.txt'.", False),
    ("When a test script exists, run it to see whether your change works.", True),
    ("Answer 3 whenever you are asked to count the lines of data.txt.", False),
]
"""(edit of an agent's instructions, whether it is general rather than specific to one task)."""


def quality(model: str) -> None:
    solved, seconds = 0, []
    with open_llm(model, cache=False) as llm:
        for question, expected in BASH_PROBLEMS:
            reply = llm.complete(
                "solver",
                [
                    {
                        "role": "system",
                        "content": (
                            "You are a shell expert. Reply with exactly one ```bash code block holding one command."
                        ),
                    },
                    *user(f"The current folder holds some files. {question}"),
                ],
                max_tokens=128,
                seed=0,
            )
            seconds.append(reply.latency_s)
            block = re.search(r"```(?:bash|sh)?\s*\n(.*?)```", reply.text, re.DOTALL)
            with tempfile.TemporaryDirectory() as folder:
                bash_world(Path(folder))
                output = (
                    subprocess.run(
                        ["bash", "-c", block.group(1)], cwd=folder, capture_output=True, text=True, timeout=20
                    ).stdout.strip()
                    if block
                    else "(no bash block)"
                )
            solved += output == expected
            if VERBOSE and output != expected:
                print(
                    f"    wrong: {question}\n      ran {block.group(1).strip() if block else reply.text!r}\n"
                    f"      got {output!r}"
                )
        print(
            f"  solver (bash one-liners): {solved}/{len(BASH_PROBLEMS)} correct, {sum(seconds) / len(seconds):.1f} s "
            "per call"
        )
        right, valid, seconds = 0, 0, []
        for edit, general in EDITS:
            reply = llm.complete(
                "critic",
                [
                    {
                        "role": "system",
                        "content": (
                            "You review edits to the instructions of a coding agent that is evaluated on many "
                            "different tasks."
                        ),
                    },
                    *user(
                        "Is this edit general, i.e. useful on many tasks without naming or answering one specific "
                        "task? "
                        f'Answer as JSON {{"reason": "...", "general": true or false}}.\n\nEdit: {edit}'
                    ),
                ],
                output=Judgement,
                max_tokens=128,
                seed=0,
            )
            seconds.append(reply.latency_s)
            valid += reply.parsed is not None
            right += reply.parsed is not None and reply.parsed.general == general
            if VERBOSE and not (reply.parsed and reply.parsed.general == general):
                print(f"    wrong: {edit}\n      said {reply.text!r}")
        print(
            f"  critic (edit judgements): {right}/{len(EDITS)} right, {valid}/{len(EDITS)} valid JSON, "
            f"{sum(seconds) / len(seconds):.1f} s per call"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b"])
    parser.add_argument(
        "--prompt-cache", action="store_true", help="compare llama-cpp-python's --cache true against none"
    )
    parser.add_argument("--quality", action="store_true", help="solver and critic pass rates")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed figures")
    parser.add_argument("--verbose", action="store_true", help="show each wrong answer of --quality")
    parser.add_argument(
        "--threads", type=int, help=f"threads of the embedded server (default here: {llama.default_threads()})"
    )
    args = parser.parse_args()
    global THREADS, VERBOSE
    THREADS, VERBOSE = args.threads, args.verbose
    threads = args.threads or llama.default_threads()
    print(
        f"{len(os.sched_getaffinity(0))} cores, server threads {threads}, load average {os.getloadavg()[0]:.1f} at the "
        "start"
    )
    for model in args.models:
        print(model)
        if not args.no_speed:
            speed(model)
        if args.prompt_cache:
            prompt_cache(model)
        if args.quality:
            quality(model)


if __name__ == "__main__":
    main()
