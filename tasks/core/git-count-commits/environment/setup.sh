#!/bin/bash
# Builds /app/repo: a single-branch repository (main) with a linear history of 12 commits.
set -euo pipefail
git config --global user.name "Jordan Lee"
git config --global user.email "jordan@example.com"

git init -q -b main /app/repo
cd /app/repo
day=1
while IFS='|' read -r file line message; do
    export GIT_AUTHOR_DATE="2024-02-$(printf '%02d' "$day")T10:00:00+00:00"
    export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"
    printf '%s\n' "$line" >> "$file"
    git add -A
    git commit -q -m "$message"
    day=$((day + 1))
done <<'LIST'
README.md|# Recipe box|Start the recipe box
README.md|A collection of family recipes.|Describe the project
soups.md|Tomato soup: tomatoes, onion, basil|Add tomato soup
soups.md|Lentil soup: lentils, carrots, cumin|Add lentil soup
cakes.md|Apple cake: apples, flour, butter, sugar|Add apple cake
cakes.md|Lemon drizzle: lemons, flour, eggs, sugar|Add lemon drizzle
soups.md|Pea soup: peas, mint, stock|Add pea soup
breads.md|Rye bread: rye flour, sourdough, salt|Add rye bread
breads.md|Focaccia: flour, olive oil, rosemary|Add focaccia
README.md|Recipes are grouped by course.|Explain the grouping
cakes.md|Carrot cake: carrots, walnuts, cinnamon|Add carrot cake
README.md|Contributions welcome.|Invite contributions
LIST
