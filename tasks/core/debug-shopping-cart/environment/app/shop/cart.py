"""A shopping cart: lines of (name, unit price, quantity), a total, and percentage discounts."""


class Cart:
    def __init__(self, owner, lines=[]):
        self.owner = owner
        self.lines = lines

    def add(self, name, price, quantity=1):
        self.lines.append((name, price, quantity))

    def count(self):
        return sum(quantity for _, _, quantity in self.lines)

    def total(self):
        return round(sum(price * quantity for _, price, quantity in self.lines), 2)

    def total_after_discount(self, percent):
        """The total with `percent` percent taken off, e.g. 10 -> 90% of the total."""
        return round(self.total() * percent / 100, 2)
