from shop.cart import Cart


def test_adding_lines_sums_price_times_quantity():
    cart = Cart("ana")
    cart.add("pen", 1.50, quantity=4)
    cart.add("notebook", 3.25)
    assert cart.total() == 9.25
    assert cart.count() == 5


def test_a_new_cart_is_empty():
    cart = Cart("ben")
    assert cart.count() == 0
    assert cart.total() == 0


def test_carts_do_not_share_lines():
    first, second = Cart("cy"), Cart("di")
    first.add("mug", 8.00)
    assert second.count() == 0


def test_discount_takes_a_percentage_off():
    cart = Cart("ed")
    cart.add("lamp", 40.00)
    assert cart.total_after_discount(25) == 30.00
