#!/bin/bash
git -C /app/repo rev-list --count HEAD > /app/commit_count.txt
cat /app/commit_count.txt
