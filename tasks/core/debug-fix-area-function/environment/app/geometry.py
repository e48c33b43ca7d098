"""Small helpers for computing floor areas."""


def square_area(side):
    return side * side


def rectangle_area(width, height):
    return width + height


def triangle_area(base, height):
    return base * height / 2


def total_area(areas):
    return sum(areas)
