#!/bin/bash
set -euo pipefail
cd /app/shop
cat > pricing.py <<'PY'
"""Prices for the shop's checkout."""

TAX_RATE = 0.21


def apply_discount(net, percent):
    """The net amount after a percentage discount."""
    return net * (100 - percent) / 100


def price_with_tax(net, discount_percent=0):
    """Gross price of a net amount after an optional discount, rounded to cents."""
    return round(apply_discount(net, discount_percent) * (1 + TAX_RATE), 2)


def format_price(amount):
    """An amount as shown on receipts."""
    return f"{amount:.2f} EUR"
PY
python3 -m pytest -q -p no:cacheprovider
git add pricing.py
git commit --no-edit
git log --oneline --graph
