#!/bin/bash
find /app/site -type d -exec chmod 755 {} +
find /app/site -type f -exec chmod 644 {} +
find /app/site/cgi-bin -maxdepth 1 -type f -exec chmod 755 {} +
