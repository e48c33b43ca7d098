"""Reward 1 when /app/recent holds exactly the docs modified on or after 2024-03-01, at their relative paths, and /app/docs is intact."""

from pathlib import Path

RECENT = """
api/setup-01.md
api/install-19.md
api/limits-32.md
api/install-13.md
api/v2/install-05.md
api/v2/webhooks-20.md
release notes/install-02.md
guides/webhooks-30.md
guides/admin/users-04.md
api/v2/install-10.md
release notes/faq-06.md
install-09.md
api/webhooks-34.md
faq-23.md
api/users-17.md
api/webhooks-03.md
""".split("\n")[1:-1]


def files(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): path.read_text() for path in root.rglob("*") if path.is_file()} if root.is_dir() else {}


def content(relative: str) -> str:
    stem = Path(relative).stem
    return f"# {stem}\n\nwritten for the docs tree, file {int(stem.rsplit('-', 1)[1])}\n"


docs, recent = files(Path("/app/docs")), files(Path("/app/recent"))
docs_intact = len(docs) == 36 and all(text == content(relative) for relative, text in docs.items())
print(1 if docs_intact and recent == {relative: content(relative) for relative in RECENT} else 0)
