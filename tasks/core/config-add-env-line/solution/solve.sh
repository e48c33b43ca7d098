#!/bin/bash
echo 'MAX_CONNECTIONS=100' >> /app/.env
cat /app/.env
