#!/bin/bash
mkdir -p /app/dist
tar -czf /app/dist/project-1.2.tar.gz -C /app \
    --exclude='.git' --exclude='__pycache__' --exclude='*.log' \
    --transform='s,^project,project-1.2,' project
