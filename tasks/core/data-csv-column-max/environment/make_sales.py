"""Prints a reproducible sales CSV; most amounts have three digits, so sorting them as text picks the wrong maximum."""

import random

rng = random.Random(44)
REGIONS = ["north", "south", "east", "west"]
PRODUCTS = ["desk", "chair", "lamp", "monitor", "shelf", "keyboard"]
rows = [rng.randint(1500, 99_999) for _ in range(45)]
rows[rng.randrange(len(rows))] = 184_250
rows[rng.randrange(len(rows))] = 129_900
print("date,region,product,amount")
for day, cents in enumerate(rows):
    print(f"2024-05-{1 + day % 30:02d},{rng.choice(REGIONS)},{rng.choice(PRODUCTS)},{cents // 100}.{cents % 100:02d}")
