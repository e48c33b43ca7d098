#!/bin/bash
sed -i 's/Quickpad/Notely/g' /app/release_notes.md
cat /app/release_notes.md
