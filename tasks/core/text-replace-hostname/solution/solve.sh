#!/bin/bash
find /app/etc -type f -name '*.conf' -exec sed -i 's/db-old\.internal/db\.prod\.internal/g' {} +
