#!/bin/bash
# Builds /app/ledger: three commits, a fourth one thrown away by `git reset --hard HEAD~1`, then one more commit.
set -euo pipefail
export GIT_AUTHOR_NAME="Dana Kim" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Kim" GIT_COMMITTER_EMAIL="dana@example.com"
git config --global user.name "Dana Kim"
git config --global user.email "dana@example.com"
day=1
commit() {
  export GIT_AUTHOR_DATE="2024-03-0${day}T10:00:00+00:00" GIT_COMMITTER_DATE="2024-03-0${day}T10:00:00+00:00"
  day=$((day + 1))
  git add -A
  git commit -q -m "$1"
}

git init -q -b main /app/ledger
cd /app/ledger
mkdir -p ledger
cat > README.md <<'MD'
# ledger

Small bookkeeping helpers for the shop.
MD
cat > ledger/__init__.py <<'PY'
"""Bookkeeping helpers."""
PY
commit "Initial commit"

cat > ledger/entries.py <<'PY'
from dataclasses import dataclass


@dataclass
class Entry:
    month: str
    customer: str
    amount_cents: int


def parse(line: str) -> Entry:
    month, customer, amount = line.strip().split(";")
    return Entry(month, customer, int(amount))
PY
commit "Parse ledger entries"

cat > ledger/totals.py <<'PY'
from collections import defaultdict


def totals_by_customer(entries):
    totals = defaultdict(int)
    for entry in entries:
        totals[entry.customer] += entry.amount_cents
    return dict(totals)
PY
commit "Add totals per customer"

mkdir -p billing
cat > billing/__init__.py <<'PY'
PY
cat > billing/report.py <<'PY'
from ledger.totals import totals_by_customer


def monthly_report(entries, month):
    """One line per customer: name and the month's total in euros, largest first."""
    selected = [entry for entry in entries if entry.month == month]
    totals = totals_by_customer(selected)
    lines = [f"{customer}: {cents / 100:.2f} EUR" for customer, cents in sorted(totals.items(), key=lambda kv: -kv[1])]
    return "\n".join(lines)
PY
commit "Add monthly billing report"
git reset -q --hard HEAD~1

cat > README.md <<'MD'
# ledger

Small bookkeeping helpers for the shop.

Entries are lines of the form `month;customer;amount_cents`.
MD
commit "Document the entry format"
