"""The curricula the learning-progress bandit is measured against: a fixed order and uniform random."""

from harness_evo.curriculum.base import ArmCurriculum


class FixedOrderCurriculum(ArmCurriculum):
    """Round robin over the active arms in the order they were created: the arm pulled longest ago goes next."""

    def probabilities(self) -> dict[str, float]:
        arms = self.active
        upcoming = min(arms, key=lambda arm: arm.last_pulled)
        return {arm.id: float(arm is upcoming) for arm in arms}


class RandomCurriculum(ArmCurriculum):
    """Every active arm equally likely, whatever was learned."""

    def probabilities(self) -> dict[str, float]:
        arms = self.active
        return {arm.id: 1 / len(arms) for arm in arms}
