"""Prints 150 URLs drawn with repeats from a pool of 40, in no particular order."""

import random

rng = random.Random(21)
hosts = ["example.com", "shop.example.org", "docs.example.net", "api.example.io"]
paths = ["", "about", "pricing", "blog/2024/launch", "login", "cart", "help/faq", "status", "careers", "terms"]
pool = [f"https://{host}/{path}" for host in hosts for path in paths]
rng.shuffle(pool)
for _ in range(150):
    print(pool[min(int(rng.expovariate(0.08)), len(pool) - 1)])
