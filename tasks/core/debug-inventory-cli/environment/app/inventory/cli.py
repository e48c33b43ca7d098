import sys

from inventory.loader import load


def main(path):
    items = load(path)
    for item in items:
        print(f"{item.name:<10} {item.quantity:>5} x {item.price:>6.2f} = {item.value:>8.2f}")
    print(f"TOTAL {sum(item.value for item in items):.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
