"""The learning-progress curriculum (ActiveSaddler): a non-stationary bandit over promoted patterns plus explore."""

import numpy as np
from scipy.special import softmax

from harness_evo.curriculum.base import Arm, ArmCurriculum


class LearningProgressCurriculum(ArmCurriculum):
    """Pulls arms by a floored softmax over their values;
    an arm's value is its prior blended with its observed progress.

    The prior of a pattern arm is its phi; its value moves towards the discounted mean of the progress observed after
    its pulls, the prior counting as `prior_weight` observations. The progress is what `rewards` reports:
    - for a pattern arm, the change in pass rate the gate measured of the edit accepted against the pattern, on all the
      gate's pairs (its tasks and the regression sample; 0 when no edit was accepted), whichever arm's iteration worked
      on the pattern;
    - for the explore arm, the share of its tasks whose failures joined a promoted pattern (what there was to find).
    An arm whose edits stopped helping thus sinks towards 0, and the floor keeps every arm, explore included, alive.
    """

    def value(self, arm: Arm) -> float:
        weight = self.config.prior_weight
        if weight + arm.evidence == 0:
            return arm.prior
        return (weight * arm.prior + arm.progress) / (weight + arm.evidence)

    def probabilities(self) -> dict[str, float]:
        arms = self.active
        soft = softmax(np.array([self.value(arm) for arm in arms]) / self.config.temperature)
        floor = min(self.config.floor, 1 / len(arms))
        return {arm.id: floor + (1 - len(arms) * floor) * float(share) for arm, share in zip(arms, soft)}
