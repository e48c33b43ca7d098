#!/bin/bash
mkdir -p /app/recent
cd /app/docs
find . -type f -newermt '2024-03-01 00:00:00' -exec cp --parents {} /app/recent/ \;
