#!/bin/bash
# Builds /app/notes: a few plain files, not yet a git repository; sets the git identity.
set -euo pipefail
git config --global user.name "Alex Moreau"
git config --global user.email "alex@example.com"

mkdir -p /app/notes
cd /app/notes
printf '# Ideas\n\n- a weekly newsletter for the club\n- a shared calendar for the allotment\n- repaint the garden shed\n' > ideas.md
printf 'oat milk\nrye bread\ntomatoes\nolive oil\ncoffee\n' > groceries.txt
printf 'The Left Hand of Darkness\nPiranesi\nThe Remains of the Day\nA Wizard of Earthsea\n' > reading-list.txt
printf '# TODO\n\n- [ ] file the tax return\n- [ ] fix the bike light\n- [x] return the drill to Sam\n' > todo.md
