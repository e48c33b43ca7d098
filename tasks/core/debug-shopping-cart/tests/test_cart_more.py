"""The verifier's own cases, in two groups: carts are independent of each other, and discounts take a percentage off."""

import sys

sys.path.insert(0, "/app")

from shop.cart import Cart  # noqa: E402


def test_many_carts_start_empty():
    carts = [Cart(f"owner{number}") for number in range(3)]
    carts[0].add("tea", 4.20, quantity=2)
    carts[2].add("cup", 2.00)
    assert [cart.count() for cart in carts] == [2, 0, 1]
    assert Cart("late").total() == 0


def test_a_cart_can_start_with_lines():
    cart = Cart("fay", [("soap", 2.50, 2)])
    cart.add("brush", 4.00)
    assert cart.total() == 9.00
    assert Cart("gus").count() == 0


def test_ten_percent_discount():
    cart = Cart("hal", [])
    cart.add("chair", 120.00)
    cart.add("cushion", 15.00, quantity=2)
    assert cart.total_after_discount(10) == 135.00


def test_zero_and_full_discount():
    cart = Cart("ivy", [])
    cart.add("desk", 199.99)
    assert cart.total_after_discount(0) == 199.99
    assert cart.total_after_discount(100) == 0
