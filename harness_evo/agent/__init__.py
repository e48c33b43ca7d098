"""The agent loop: harness + model + sandbox -> Trajectory; then the task's verifier."""
