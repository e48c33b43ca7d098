"""Prints the area of a circle and the side of the square that has the same area."""

import sys


def circle_area(radius):
    return math.pi * radius ** 2


def square_side(area):
    return math.sqrt(area)


def main():
    radius = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    area = circle_area(radius)
    print(f"area: {area:.2f}")
    print(f"square side: {square_side(area):.2f}")


if __name__ == "__main__":
    main()
