#!/bin/bash
# Builds /app/shop with main and feature/discounts diverged in pricing.py, and leaves `git merge` stopped on the conflict.
set -euo pipefail
export GIT_AUTHOR_NAME="Sam Ortiz" GIT_AUTHOR_EMAIL="sam@example.com"
export GIT_COMMITTER_NAME="Sam Ortiz" GIT_COMMITTER_EMAIL="sam@example.com"
git config --global user.name "Sam Ortiz"
git config --global user.email "sam@example.com"
day=10
commit() {
  export GIT_AUTHOR_DATE="2024-05-${day}T09:30:00+00:00" GIT_COMMITTER_DATE="2024-05-${day}T09:30:00+00:00"
  day=$((day + 1))
  git add -A
  git commit -q -m "$1"
}

git init -q -b main /app/shop
cd /app/shop
mkdir tests
cat > pricing.py <<'PY'
"""Prices for the shop's checkout."""

TAX_RATE = 0.20


def price_with_tax(net):
    """Gross price of a net amount, rounded to cents."""
    return round(net * (1 + TAX_RATE), 2)
PY
cat > tests/test_tax.py <<'PY'
from pricing import price_with_tax


def test_zero_costs_nothing():
    assert price_with_tax(0) == 0
PY
printf '[pytest]\npythonpath = .\n' > pytest.ini
commit "Price with tax"

git checkout -q -b feature/discounts
cat > pricing.py <<'PY'
"""Prices for the shop's checkout."""

TAX_RATE = 0.20


def apply_discount(net, percent):
    """The net amount after a percentage discount."""
    return net * (100 - percent) / 100


def price_with_tax(net, discount_percent=0):
    """Gross price of a net amount after an optional discount, rounded to cents."""
    return round(apply_discount(net, discount_percent) * (1 + TAX_RATE), 2)
PY
cat > tests/test_discount.py <<'PY'
from pricing import apply_discount, price_with_tax


def test_discount_lowers_the_net_amount():
    assert apply_discount(50, 20) == 40


def test_discount_is_applied_before_tax():
    assert price_with_tax(100, discount_percent=10) == round(90 * (1 + 0.21), 2)
PY
commit "Support percentage discounts"

git checkout -q main
cat > pricing.py <<'PY'
"""Prices for the shop's checkout."""

TAX_RATE = 0.21


def price_with_tax(net):
    """Gross price of a net amount, rounded to cents."""
    return round(net * (1 + TAX_RATE), 2)


def format_price(amount):
    """An amount as shown on receipts."""
    return f"{amount:.2f} EUR"
PY
cat > tests/test_tax.py <<'PY'
from pricing import format_price, price_with_tax


def test_zero_costs_nothing():
    assert price_with_tax(0) == 0


def test_tax_rate_is_21_percent():
    assert price_with_tax(100) == 121


def test_receipts_show_euros_with_cents():
    assert format_price(5) == "5.00 EUR"
PY
commit "Raise the tax rate to 21% and format prices"

export GIT_AUTHOR_DATE="2024-05-20T08:00:00+00:00" GIT_COMMITTER_DATE="2024-05-20T08:00:00+00:00"
if git merge feature/discounts >/dev/null 2>&1; then
  echo "expected a merge conflict" >&2
  exit 1
fi
rm -rf .pytest_cache
