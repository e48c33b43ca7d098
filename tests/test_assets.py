"""Binary files in skills (fonts, a PDF, a .tar.gz): opaque assets that load, hash, travel into the sandbox, import
leniently and export strictly (every exported skill passes the reference validator)."""

import hashlib
import io
import shutil
import tarfile
import time
from pathlib import Path

import pytest
import skills_ref

from harness_evo.agent.task_skills import bundled
from harness_evo.errors import HarnessError
from harness_evo.harness import Harness, Write
from harness_evo.harness.assets import MAX_ASSET_BYTES, MAX_ASSETS_BYTES
from harness_evo.harness.edit import Edit
from harness_evo.harness.formats import export_harness, import_harness
from harness_evo.harness.frontmatter import frontmatter, split_frontmatter
from harness_evo.llm import scripted
from harness_evo.store import RunStore

ROOT = Path(__file__).parents[1]
BASH_AGENT = ROOT / "harnesses" / "bash-agent"
FONT = b"\x00\x01\x00\x00\x00\x0f\x00\x80\x00\x03\x00\x70GDEF" + bytes(range(256)) * 8
"""The first bytes of a TrueType font (its sfnt version and table count), then bytes no text file has."""
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" + bytes(range(128, 256))


def targz(files: dict[str, str]) -> bytes:
    """A .tar.gz holding `files` (name -> text)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue()


def write_skill(folder: Path, description: str, files: dict[str, str | bytes], name: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        frontmatter(
            {"name": name or folder.name, "description": description},
            f"# {folder.name}\n\nUse the files beside this one.\n",
        )
    )
    for relative, content in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return folder


LONG = " ".join(["Say a lot."] * 97)
"""A description of 1066 characters, over the Agent Skills limit of 1024."""
COMPONENTS = targz({"button.tsx": "export const Button = () => null;\n"})
UNPACK = "#!/bin/sh\ntar -xzf ${CLAUDE_SKILL_DIR}/components.tar.gz -O button.tsx\n"


def collection(root: Path) -> Path:
    """A folder of Agent Skills like public collections hold: fonts, a PDF showcase, an archive a script unpacks, and an
    over-long description."""
    write_skill(
        root / "canvas-design",
        "Make posters with the bundled fonts.",
        {"canvas-fonts/Mono-Regular.ttf": FONT, "canvas-fonts/Mono-Bold.ttf": FONT[::-1]},
    )
    write_skill(root / "theme-factory", "Style documents after the showcase.", {"theme-showcase.pdf": PDF})
    write_skill(
        root / "web-artifacts-builder",
        "Build web pages from packed components.",
        {"components.tar.gz": COMPONENTS, "unpack.sh": UNPACK},
    )
    write_skill(root / "long-winded", LONG, {})
    return root


@pytest.fixture
def with_assets(tmp_path: Path) -> Path:
    """The default harness with a skill holding a font and an archive its script unpacks."""
    folder = Path(shutil.copytree(BASH_AGENT, tmp_path / "h"))
    write_skill(
        folder / "skills" / "brand",
        "Brand assets: a font and packed components.",
        {"fonts/Mono.ttf": FONT, "components.tar.gz": COMPONENTS, "unpack.sh": UNPACK},
    )
    return folder


def test_binary_files_of_a_skill_are_assets_counted_in_the_hash_and_kept_by_edits(with_assets: Path, tmp_path: Path):
    harness = Harness.load(with_assets)
    assert sorted(harness.assets) == ["skills/brand/components.tar.gz", "skills/brand/fonts/Mono.ttf"]
    assert "skills/brand/unpack.sh" in harness.components and "skills/brand/fonts/Mono.ttf" not in harness.components
    assert (
        Harness.load(BASH_AGENT).hash == Harness(Harness.load(BASH_AGENT).components).hash
    )  # no assets: the hash as before
    (with_assets / "skills" / "brand" / "fonts" / "Mono.ttf").write_bytes(FONT[:-1] + b"\x01")
    assert Harness.load(with_assets).hash != harness.hash, "a changed font is a different harness"
    child = harness.apply(
        Edit(ops=[Write(path="skills/brand/NOTES.md", text="Use Mono for code.\n")], rationale="r", prediction="p")
    )
    assert child.assets == harness.assets
    again = Harness.load(child.save(tmp_path / "saved"))
    assert again.hash == child.hash and again.assets["skills/brand/fonts/Mono.ttf"] == FONT


def test_assets_over_their_caps_or_outside_skill_and_tool_folders_are_refused_in_one_line(with_assets: Path):
    big = with_assets / "skills" / "brand" / "big.bin"
    big.write_bytes(b"\x00" * (MAX_ASSET_BYTES + 1))
    with pytest.raises(
        HarnessError,
        match=r"skills/brand/big.bin: 4,194,305 bytes, a binary file may have at most 4,194,304 \(4.0 MiB\)",
    ) as refused:
        Harness.load(with_assets)
    assert "\n" not in str(refused.value)
    big.unlink()
    for k in range(MAX_ASSETS_BYTES // MAX_ASSET_BYTES + 1):
        (with_assets / "skills" / "brand" / f"part{k}.bin").write_bytes(b"\x00" * MAX_ASSET_BYTES)
    with pytest.raises(HarnessError, match=r"a harness may carry at most 16,777,216 \(16.0 MiB\)"):
        Harness.load(with_assets)
    with pytest.raises(HarnessError, match="is both a text component and a binary file"):
        Harness({**Harness.load(BASH_AGENT).components, "skills/x/a.bin": "text"}, assets={"skills/x/a.bin": b"\x00"})


@pytest.mark.docker
def test_a_skills_script_uses_its_binary_files_in_the_sandbox(with_assets: Path, tmp_path: Path, cli):
    installed = "/opt/harness/skills/brand"
    task = tmp_path / "suite" / "unpack"
    (task / "tests").mkdir(parents=True)
    (task / "environment").mkdir()
    (task / "task.toml").write_text("[agent]\ntimeout_sec = 120\n[verifier]\ntimeout_sec = 30\n")
    (task / "instruction.md").write_text("Write the font's sha256 and the packed button to /app/out.txt.\n")
    (task / "environment" / "Dockerfile").write_text("FROM python:3.11-slim-bookworm\nWORKDIR /app\n")
    expected = f"{hashlib.sha256(FONT).hexdigest()}\nexport const Button = () => null;"
    (task / "tests" / "test.sh").write_text(
        f"#!/bin/bash\n[ \"$(cat /app/out.txt)\" = '{expected}' ] && echo 1 > /logs/verifier/reward.txt "
        "|| echo 0 > /logs/verifier/reward.txt\n"
    )
    (tmp_path / "suite" / "suite.toml").write_text('[splits]\ntrain = ["unpack"]\ndev = []\ntest = []\n')
    name = f"assets-{time.monotonic_ns()}"
    scripted.register(
        name,
        [
            f"```bash\n(sha256sum {installed}/fonts/Mono.ttf | cut -d' ' -f1; sh {installed}/unpack.sh) > "
            "/app/out.txt\n```",
            "```bash\ncat /app/out.txt; echo TASK_DONE\n```",
        ],
    )
    result = cli(
        "eval",
        "--harness",
        with_assets,
        "--tasks",
        tmp_path / "suite",
        "--split",
        "train",
        "--model",
        f"scripted/{name}",
        "--runs",
        tmp_path / "runs",
    )
    assert result.exit_code == 0, result.output
    [row] = RunStore(next((tmp_path / "runs").iterdir())).rows("rollouts")
    assert row["passed"], "the font or the archive did not arrive whole next to the skill"


def test_a_collection_with_binary_files_and_a_long_description_imports_whole_and_exports_valid_skills(tmp_path: Path):
    source = collection(tmp_path / "collection")
    imported = import_harness("skills", source, tmp_path / "harness", base=Harness.load(BASH_AGENT))
    harness = Harness.load(tmp_path / "harness")
    assert {skill.name for skill in harness.skills} >= {
        "canvas-design",
        "theme-factory",
        "web-artifacts-builder",
        "long-winded",
    }
    assert harness.assets["skills/theme-factory/theme-showcase.pdf"] == PDF and len(harness.assets) == 4
    notes = "\n".join(imported.notes)
    assert (
        "canvas-design: 2 binary files" in notes and f"long-winded: its description has {len(LONG)} characters" in notes
    )
    assert "refused" not in notes

    for fmt, skills in [("skills", "."), ("claude-code", ".claude/skills")]:
        export_harness(harness, fmt, tmp_path / fmt)
        folders = [path.parent for path in (tmp_path / fmt / skills).glob("*/SKILL.md")]
        assert {folder.name: skills_ref.validate(folder) for folder in folders} == {
            folder.name: [] for folder in folders
        }
        assert (tmp_path / fmt / skills / "canvas-design" / "canvas-fonts" / "Mono-Bold.ttf").read_bytes() == FONT[::-1]
        front, _ = split_frontmatter((tmp_path / fmt / skills / "long-winded" / "SKILL.md").read_text(), "SKILL.md")
        assert len(front["description"]) <= 1024 and front["description"].endswith("…")
        notes = (tmp_path / fmt / "EXPORT.md").read_text()
        assert f"sha256 {hashlib.sha256(PDF).hexdigest()[:12]}" in notes and "`long-winded` was rewritten" in notes
        back = import_harness(fmt, tmp_path / fmt, tmp_path / f"{fmt}-back", base=None).harness
        assert back.assets == {path: data for path, data in harness.assets.items()}


def test_mini_swe_agent_writes_binary_files_beside_its_config_names_them_and_takes_them_back(
    with_assets: Path, tmp_path: Path
):
    harness = Harness.load(with_assets)
    export_harness(harness, "mini-swe-agent", tmp_path / "mini")
    assert (tmp_path / "mini" / "skills" / "brand" / "components.tar.gz").read_bytes() == COMPONENTS
    notes = (tmp_path / "mini" / "EXPORT.md").read_text()
    assert "components.tar.gz" in notes and "fonts/Mono.ttf" in notes
    back = import_harness(
        "mini-swe-agent", tmp_path / "mini" / "config.yaml", tmp_path / "back", base=Harness.load(BASH_AGENT)
    ).harness
    assert back.assets == harness.assets


def test_a_skill_whose_binary_file_is_over_the_cap_is_refused_alone_with_why(tmp_path: Path):
    source = collection(tmp_path / "collection")
    write_skill(source / "huge", "Too big to carry.", {"video.mp4": b"\x00" * (MAX_ASSET_BYTES + 1)})
    imported = import_harness("skills", source, tmp_path / "harness", base=Harness.load(BASH_AGENT))
    refused = [note for note in imported.notes if note.startswith("refused")]
    assert refused == [
        "refused huge: skills/huge/video.mp4: 4,194,305 bytes, a binary file may have at most 4,194,304 (4.0 MiB)"
    ]
    assert "skills/huge/SKILL.md" not in imported.harness.components


def test_binary_files_of_a_skill_a_task_brings_are_installed_too(tmp_path: Path, make_task):
    task = make_task(tmp_path / "task")
    write_skill(
        task.environment_dir / "skills" / "brand", "Brand fonts.", {"fonts/Mono.ttf": FONT, "README.md": "Fonts.\n"}
    )
    skills, files = bundled(task)
    assert [skill.name for skill in skills] == ["brand"]
    assert files["/opt/harness/task-skills/brand/fonts/Mono.ttf"] == FONT
    assert files["/opt/harness/task-skills/brand/README.md"] == "Fonts.\n"
