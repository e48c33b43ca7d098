#!/bin/bash
sed -E -i 's#\b([0-9]{2})/([0-9]{2})/([0-9]{4})\b#\3-\1-\2#g' /app/CHANGELOG.md
