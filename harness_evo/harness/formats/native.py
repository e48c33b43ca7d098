"""native: the harness folder itself, which `harness-evo eval` accepts as it is."""

from pathlib import Path

from harness_evo.harness.folder import Harness
from harness_evo.harness.formats.base import Exported, Imported


class Native:
    name = "native"

    def export(self, harness: Harness) -> Exported:
        return Exported(
            files=dict(harness.components),
            assets=dict(harness.assets),
            usage=["`harness-evo eval --harness DIR` runs it; `harness-evo evolve --harness DIR` evolves it further."],
        )

    def load(self, source: Path, base: Harness | None) -> Imported:
        return Imported(harness=Harness.load(source))
