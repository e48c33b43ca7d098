"""Prints a few hundred lines of report-like prose with skewed word frequencies, capitalised sentence starts and punctuation."""

import random

WORDS = (
    "the data server we system users report team network storage errors latency of and to in for on with "
    "was were is are by backup release quarter cluster database request requests week deploy service "
    "incident review metrics customer traffic peak load migration plan capacity cost budget"
).split()

rng = random.Random(1003)
weights = [1 / (rank + 1) ** 0.9 for rank in range(len(WORDS))]
for _ in range(220):
    sentence = rng.choices(WORDS, weights, k=rng.randint(6, 14))
    sentence[0] = sentence[0].capitalize()
    if rng.random() < 0.3:
        sentence[rng.randrange(1, len(sentence))] += ","
    if rng.random() < 0.2:
        sentence.insert(rng.randrange(1, len(sentence)), f"{rng.randint(2, 99)}%")
    if rng.random() < 0.15:
        sentence.insert(rng.randrange(1, len(sentence)), f"({rng.choice(WORDS).upper()})")
    print(" ".join(sentence) + rng.choice([".", ".", ".", "!", "?", ";"]))
