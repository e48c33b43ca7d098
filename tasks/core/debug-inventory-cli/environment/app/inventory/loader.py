import csv

from inventory.model import Item


def load(path):
    """Reads the items of a stock CSV (columns name, quantity, price)."""
    with open(path, newline="") as source:
        return [Item(row["name"], int(row["quantity"]), int(row["price"])) for row in csv.DictReader(source)]
