"""view FILE [START [END]]: print a file's lines with their numbers."""

import sys


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 3:
        print("usage: view FILE [START [END]]", file=sys.stderr)
        return 2
    try:
        with open(argv[0], errors="replace") as handle:
            lines = handle.read().splitlines()
        start = int(argv[1]) if len(argv) > 1 else 1
        end = int(argv[2]) if len(argv) > 2 else len(lines)
    except (OSError, ValueError) as e:
        print(f"view: {e}", file=sys.stderr)
        return 1
    for number in range(max(start, 1), min(end, len(lines)) + 1):
        print(f"{number:6}  {lines[number - 1]}")
    print(f"({len(lines)} lines in {argv[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
