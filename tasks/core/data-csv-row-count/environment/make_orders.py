"""Prints a reproducible CSV of orders: a header line, then one line per order."""

import random

rng = random.Random(2024)
customers = ["Acme Ltd", "Blue Fox", "Corvid Labs", "Delta Print", "Evergreen", "Fabrik 9", "Gull Cafe"]
products = ["notebook", "pen set", "desk lamp", "monitor arm", "keyboard", "mouse pad"]
print("order_id,date,customer,product,quantity,amount")
for n in range(23):
    quantity = rng.randint(1, 5)
    print(f"{5101 + n},2024-04-{n + 3:02d},{rng.choice(customers)},{rng.choice(products)},{quantity},{quantity * rng.randint(4, 90)}.00")
