#!/bin/bash
find /app/project -name settings.yaml > /app/settings_path.txt
cat /app/settings_path.txt
