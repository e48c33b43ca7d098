#!/bin/bash
# Checks the outcome (see check.py) and writes the reward; 0 whenever the check cannot run.
set -u
rm -f /logs/verifier/reward.txt
python3 /tests/check.py > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
