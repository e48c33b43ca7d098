"""The curriculum: which promoted failure pattern (arm) the next iteration works on,
and its minibatch of train tasks."""

from collections.abc import Sequence

from harness_evo.config import CurriculumConfig
from harness_evo.curriculum.bandit import LearningProgressCurriculum
from harness_evo.curriculum.base import (
    EXPLORE,
    Arm,
    ArmCurriculum,
    Curriculum,
    CurriculumState,
    PatternView,
    Pull,
    Similar,
    rewards,
)
from harness_evo.curriculum.baselines import FixedOrderCurriculum, RandomCurriculum
from harness_evo.curriculum.similar import similar_by_metadata

CURRICULA: dict[str, type[ArmCurriculum]] = {
    "learning-progress": LearningProgressCurriculum,
    "fixed": FixedOrderCurriculum,
    "random": RandomCurriculum,
}
"""`CurriculumConfig.strategy` -> its class."""


def make_curriculum(
    config: CurriculumConfig, train: Sequence[str], similar: Similar | None = None, state: CurriculumState | None = None
) -> Curriculum:
    """The configured strategy over these train task ids; pass the saved `state` to resume where it stopped."""
    return CURRICULA[config.strategy](config, train, similar, state)


__all__ = [
    "CURRICULA",
    "EXPLORE",
    "Arm",
    "Curriculum",
    "CurriculumState",
    "FixedOrderCurriculum",
    "LearningProgressCurriculum",
    "PatternView",
    "Pull",
    "RandomCurriculum",
    "make_curriculum",
    "rewards",
    "similar_by_metadata",
]
