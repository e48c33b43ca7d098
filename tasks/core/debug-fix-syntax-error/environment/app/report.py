"""Prints the number of orders, their total and their average amount, read from a CSV file."""

import csv
import sys


def load_amounts(path):
    with open(path, newline="") as source:
        return [float(row["amount"]) for row in csv.DictReader(source)]


def summarize(amounts):
    total = 0
    for amount in amounts
        total += amount
    average = total / len(amounts) if amounts else 0
    return {"orders": len(amounts), "total": total, "average": average}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/app/orders.csv"
    summary = summarize(load_amounts(path))
    print(f"orders: {summary['orders']}")
    print(f"total: {summary['total']:.2f}")
    print(f"average: {summary['average']:.2f}")


if __name__ == "__main__":
    main()
