#!/bin/bash
find /app/srv -type f -perm -o=w | sort > /app/world_writable.txt
find /app/srv -type f -perm -o=w -exec chmod o-w {} +
