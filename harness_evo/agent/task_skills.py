"""Skills a task brings for the agent (`environment/skills/<name>/SKILL.md`, as SkillsBench ships them): installed in
the sandbox beside the harness's own and listed in the prompt with them, as Harbor's agents see them."""

import logging
from pathlib import Path

from harness_evo.harness.assets import as_text
from harness_evo.harness.folder import SANDBOX_ROOT, Skill, installed_skill_text
from harness_evo.harness.formats.agent_skills import skill_file, skill_problems
from harness_evo.harness.frontmatter import split_frontmatter
from harness_evo.taskset import Task

TASK_SKILLS_ROOT = f"{SANDBOX_ROOT}/task-skills"
log = logging.getLogger(__name__)


def bundled(task: Task) -> tuple[list[Skill], dict[str, str | bytes]]:
    """The task's own skills and their files by sandbox path (text, or bytes for a binary file); a skill that is not
    valid is left out with a warning."""
    root = task.environment_dir / "skills"
    skills: list[Skill] = []
    files: dict[str, str | bytes] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        problems = skill_problems(folder, lenient=True)
        if problems:
            log.warning("%s: skill %s left out: %s", task.id, folder.name, "; ".join(problems))
            continue
        skill_md = skill_file(folder)
        front, body = split_frontmatter(skill_md.read_text(), str(skill_md))
        skills.append(
            Skill(
                name=front["name"],
                description=str(front["description"]).strip(),
                body=body,
                location=f"{TASK_SKILLS_ROOT}/{folder.name}/{skill_md.name}",
            )
        )
        installed = f"{TASK_SKILLS_ROOT}/{folder.name}"
        files |= {
            f"{installed}/{path.relative_to(folder).as_posix()}": installed_skill_text(content, installed)
            if isinstance(content, str)
            else content
            for path in sorted(folder.rglob("*"))
            if (content := _content(path)) is not None
        }
    return skills, files


def _content(path: Path) -> str | bytes | None:
    """A regular file's text, or its bytes when it is binary; None for folders, links and files that cannot be read."""
    if path.is_symlink() or not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    text = as_text(data)
    return data if text is None else text
