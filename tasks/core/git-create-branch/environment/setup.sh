#!/bin/bash
# Builds /app/webshop with branches main and develop (ahead of main); develop is checked out.
set -euo pipefail
git config --global user.name "Kim Novak"
git config --global user.email "kim@example.com"

commit() {
    export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"
    git add -A
    git commit -q -m "$2"
}

git init -q -b main /app/webshop
cd /app/webshop
mkdir -p shop
printf '# webshop\n\nA small online shop.\n' > README.md
printf 'def list_products():\n    return ["mug", "poster"]\n' > shop/catalog.py
commit "2024-06-03T10:00:00+00:00" "Initial catalog"
printf 'def total(prices):\n    return sum(prices)\n' > shop/cart.py
commit "2024-06-04T10:00:00+00:00" "Add cart total"

git checkout -q -b develop
printf 'def total(prices, discount=0):\n    return sum(prices) * (1 - discount)\n' > shop/cart.py
commit "2024-06-05T10:00:00+00:00" "WIP: discounts in the cart"

git checkout -q main
printf 'def list_products():\n    return ["mug", "poster", "t-shirt"]\n' > shop/catalog.py
commit "2024-06-06T10:00:00+00:00" "Sell t-shirts"

git checkout -q develop
printf 'def apply_coupon(code):\n    return 0.1 if code == "SUMMER" else 0\n' > shop/coupons.py
commit "2024-06-07T10:00:00+00:00" "WIP: coupons"
